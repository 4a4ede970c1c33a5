"""How a label becomes a query name, and a choice a name a statement can hold (shared by the
compiler, the query path, the command line and the agent tools; import-light).

    >>> slug("8-bit Adam")
    '8-bit-adam'
"""

from __future__ import annotations

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def slug(text: str) -> str:
    """How a label becomes a query name: ``"8-bit Adam"`` → ``8-bit-adam``: lower case, every
    run of other characters than ``[a-z0-9_]`` one hyphen, none at either end.

    >>> slug("  Mixture-of-Experts (MoE)! "), slug("Ünïcode_ok")
    ('mixture-of-experts-moe', 'n-code_ok')
    """
    out: list[str] = []
    gap = False
    for ch in text.lower():
        if ch in _NAME_CHARS:
            if gap and out:
                out.append("-")
            out.append(ch)
            gap = False
        else:
            gap = True
    return "".join(out)


def edits(a: str, b: str) -> int:
    """How many single-letter edits (insert, delete, replace, swap two neighbours) turn ``a``
    into ``b`` (the optimal string alignment distance).

    >>> edits("tabluar", "tabular"), edits("slow-convergence", "slow-divergence")
    (1, 3)
    """
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, prev2[j - 2] + 1)
            row.append(cost)
        prev2, prev = prev, row
    return prev[-1]


def is_misspelling(typed: str, name: str) -> bool:
    """Whether ``typed`` is close enough to ``name`` to be a slip of the keyboard: one edit
    in a short name, two in a longer one. A suggestion further away is a different word that
    merely looks alike (``slow-convergence`` is not a spelling of ``slow-divergence``).

    >>> is_misspelling("tabluar", "tabular"), is_misspelling("slow-convergence", "slow-divergence")
    (True, False)
    >>> is_misspelling("segmentation", "generation")
    False
    """
    allowed = 1 if len(name) <= 6 else 2
    if abs(len(typed) - len(name)) > allowed:   # (more edits than allowed: no need to count them, however long)
        return False
    return edits(typed, name) <= allowed


def quote_choice(choice: str) -> str:
    """A choice as a statement names it: a bare name, or a quoted label.

    >>> quote_choice("8-bit Adam"), quote_choice("vit")
    ('"8-bit Adam"', 'vit')
    """
    if choice[:1].isascii() and choice[:1].isalpha() and all(c.isalnum() or c in "_-" for c in choice[1:]):
        return choice
    return '"' + choice.replace("\\", "\\\\").replace('"', '\\"') + '"'


def a_kind(kind: str) -> str:
    """A kind of choice with its indefinite article (the kinds' names are plain English words).

    >>> a_kind("approach"), a_kind("technique")
    ('an approach', 'a technique')
    """
    return f"{'an' if kind[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {kind}"
