"""Where an input of ``recipekg shell`` ends, read a line at a time (a pipe) without :mod:`re`:
a shell command, a blank line after a statement, or a ``;`` that is code (not in a string or a
comment). :mod:`recipekg.cli.session` reads pipes with it; :mod:`recipekg.cli.completion`
reads typed text by the same :func:`code_of`.
"""

from __future__ import annotations


def line_ends_input(line: str, first: bool) -> bool:
    """Whether the input that ``line`` (the newest line, ``first`` when nothing but blank
    lines came before) ends is ready: a shell command on its first line, a blank line after
    a statement, or a line whose code ends with ``;``. Strings and comments never span lines,
    so the newest line decides, and a long statement costs linear time, not a scan of
    everything before it per line (:func:`recipekg.cli.completion.ends_input` reads a whole
    text by :func:`code_of` too).

    >>> line_ends_input("and rows = 30k;", first=False), line_ends_input("   ", first=False)
    (True, True)
    >>> line_ends_input('where x = "a;b"', first=False), line_ends_input(".help", first=True)
    (False, True)
    >>> line_ends_input('where x = "a;', first=False), line_ends_input("top 3 # ;", first=False)
    (True, False)
    """
    stripped = line.strip()
    if first and stripped.startswith("."):
        return True
    if not stripped:
        return not first
    return code_of(line).rstrip().endswith(";")


def code_of(text: str) -> str:
    """``text`` with each complete string replaced by ``x`` and each comment dropped: what
    ``re.sub(r'"(?:[^"\\\\\\n]|\\\\.)*"|#[^\\n]*', ...)`` makes of it (a test compares the two),
    scanned by hand. A string ends at its closing quote on the same line; a quote that no
    closing quote follows on its line stays as it is.

    >>> code_of('plan where x = "a;b" # c;\\nand y = "\\\\"q;'), code_of('a "\\\\" b" ; "')
    ('plan where x = x \\nand y = "\\\\"q;', 'a x ; "')
    """
    pieces, at, n = [], 0, len(text)
    hash_at = text.find("#")
    while at < n:
        quote = text.find('"', at)
        if 0 <= hash_at < at:
            hash_at = text.find("#", at)
        nxt = min(p for p in (quote, hash_at, n) if p >= 0)
        pieces.append(text[at:nxt])
        if nxt == n:
            break
        if nxt == hash_at:
            end = text.find("\n", nxt)
            at = n if end < 0 else end  # the comment dropped, its line break kept
            continue
        end = _string_end(text, nxt)
        pieces.append('"' if end < 0 else "x")
        at = nxt + 1 if end < 0 else end
    return "".join(pieces)


def _string_end(text: str, start: int) -> int:
    """Where the string opened at ``start`` ends (after its closing quote), -1 when no
    closing quote follows on its line."""
    at, n = start + 1, len(text)
    while at < n:
        c = text[at]
        if c == '"':
            return at + 1
        if c == "\n":
            return -1
        if c == "\\":
            if at + 1 >= n or text[at + 1] == "\n":
                return -1
            at += 2
            continue
        at += 1
    return -1
