"""The one table writer: Markdown (cells escaped) or aligned plain text.

    >>> print("\\n".join(table(["paper", "claims"], [("a|b", 3), ("kaplan2020", 11)], md=True)))
    | paper | claims |
    |---|---|
    | a\\|b | 3 |
    | kaplan2020 | 11 |
    >>> print("\\n".join(table(["paper", "claims"], [("kaplan2020", 11)], md=False, right={1})))
    paper       claims
    ----------  ------
    kaplan2020      11
"""

from __future__ import annotations


#: The characters Markdown (CommonMark, GitHub's) reads as markup in running text: each is
#: written with a backslash, which CommonMark removes when it renders. ``|`` is left to
#: :func:`md_cell` (a table's cells), ``-``, ``+``, ``.`` and digits mean something only at the
#: start of a line, which KB text never is.
_MARKUP = set("\\`*_{}[]<>#!~&")


def md_text(text: str) -> str:
    """KB or query text as Markdown shows it literally: no emphasis, link, image, HTML tag,
    entity or code span of its own, one line.

    >>> print(md_text("**bold** [x](javascript:alert(1)) <script>"))
    \\*\\*bold\\*\\* \\[x\\](javascript:alert(1)) \\<script\\>
    """
    return "".join("\\" + c if c in _MARKUP else " " if c in "\r\n" else c for c in text)


def md_code(text: str) -> str:
    """``text`` as one code span, whatever backticks it holds (a longer fence, spaces inside).

    >>> md_code("a`b"), md_code("plain")
    ('`` a`b ``', '`plain`')
    """
    text = str(text).replace("\r", " ").replace("\n", " ")
    longest, run = 0, 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    return f"{fence}{text}{fence}" if not longest else f"{fence} {text} {fence}"


#: Fields shown in code spans (:func:`md_code`) or as links, or that are not text: left as they are.
VERBATIM = {"expression", "symbol", "iri", "url", "arxiv", "doi", "statement", "kind", "group", "match", "side",
            "example"}


def markdown_safe(value, key: str | None = None):
    """A copy of an answer or report whose every text Markdown shows literally (:func:`md_text`),
    but the fields of :data:`VERBATIM`.

    >>> markdown_safe({"text": "a_b", "expression": "m = a * b", "n": [1, "<i>"]})
    {'text': 'a\\\\_b', 'expression': 'm = a * b', 'n': [1, '\\\\<i\\\\>']}
    """
    if isinstance(value, str):
        return value if key in VERBATIM else md_text(value)
    if isinstance(value, dict):
        return {k: markdown_safe(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [markdown_safe(v, key) for v in value]
    return value


def md_cell(text) -> str:
    """A Markdown table cell: pipes escaped, line breaks as spaces."""
    return str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def table(header: list[str], rows: list[tuple], *, md: bool, right: set[int] = frozenset()) -> list[str]:
    """The lines of a table; ``right`` holds the indexes of right-aligned (number) columns."""
    rows = [tuple("" if c is None else str(c) for c in r) for r in rows]
    if md:
        return (["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
                + ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows])
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
