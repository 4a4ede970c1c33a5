"""Writing to the standard streams as ``click.echo`` does, without click: what the fast lane
(:mod:`recipekg.cli.fast`) and the piped shell (:mod:`recipekg.cli.session`) print with.

    >>> import io
    >>> out = io.StringIO()
    >>> echo("tab\\x1b[31mular", out); out.getvalue()
    'tab\\\\u001b[31mular\\n'
"""

from __future__ import annotations


def echo(text: str, stream) -> None:
    """``click.echo``: the text and a newline in one write, then flush, every control
    character written out (:func:`recipekg.errors.printable`): no answer or message sends the
    terminal an escape sequence."""
    from recipekg.errors import printable

    stream.write(printable(text) + "\n")
    stream.flush()


class Pacified:
    """click's ``_PacifyFlushWrapper``: a closed pipe is not an error at interpreter exit."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as e:
            import errno

            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)
