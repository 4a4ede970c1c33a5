"""``query -f FILE`` reads UTF-8 with or without a byte-order mark as the ``utf-8-sig`` codec
does, without loading it (a codec search and a module for every cold file): the same text, and
for bytes that are not UTF-8 the same error at the same line and column."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from recipekg.cli.respond import utf8_text
from recipekg.errors import QuerySyntaxError

PIECES = [b"\xef\xbb\xbf", b"plan", b" ", b"\n", b"\xe9", b"\xc3\xa9", b"\xef", b"\xbb", b"\xbf", b"\xff",
          "𝄞".encode(), b"\xed\xa0\x80", b"\r\n"]


def _codec(data: bytes) -> tuple:
    """What utf8_text gave when it decoded with the codec: the text, or where the error is."""
    try:
        return ("text", data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        return ("error", before.count(b"\n") + 1, len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1)


@given(st.lists(st.sampled_from(PIECES), max_size=12).map(b"".join))
def test_the_text_and_the_errors_are_the_codecs(data):
    try:
        got = ("text", utf8_text(data, "q.rkg"))
    except QuerySyntaxError as exc:
        got = ("error", exc.line, exc.column)
    assert got == _codec(data)
