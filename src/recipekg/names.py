"""How a label becomes a query name (shared by the compiler and the query path, import-light).

    >>> slug("8-bit Adam")
    '8-bit-adam'
"""

from __future__ import annotations

import re

_NOT_NAME = re.compile(r"[^a-z0-9_]+")


def slug(text: str) -> str:
    """How a label becomes a query name: ``"8-bit Adam"`` → ``8-bit-adam``."""
    return _NOT_NAME.sub("-", text.lower()).strip("-")
