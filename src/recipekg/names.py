"""How a label becomes a query name (shared by the compiler and the query path, import-light).

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
