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
