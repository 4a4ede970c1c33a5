"""How an error reaches a person or a program, the same for the CLI, the fast lane and the
web page.

    >>> from recipekg.errors import UsageError
    >>> error_output(UsageError("give a statement or -f FILE, not both"), "text")
    ('error: give a statement or -f FILE, not both', True)
    >>> error_output(UsageError("no"), "json")[0].splitlines()[1]
    '  "error": {'
"""

from __future__ import annotations



def error_output(exc, fmt: str) -> tuple[str, bool]:
    """The text to print for ``exc`` and whether it goes to stderr: with ``--format json``
    the spec's ``{"error": {...}}`` on stdout, else ``error: ...`` (with the caret) on stderr."""
    if fmt == "json":
        from recipekg.render.jsontext import dumps  # json.dumps(indent=2) without importing json

        return dumps({"error": exc.to_dict()}), False
    return f"error: {exc}", True


def error_text(exc) -> str:
    """The message with its position, the query line and the caret (the web page's box)."""
    return str(exc)
