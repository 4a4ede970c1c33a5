"""Fixtures the plan tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def run_plan(kb):
    """``run_plan(query) -> answer``: each plan statement answered once per module."""
    cache = {}

    def run(query: str) -> dict:
        if query not in cache:
            (cache[query],) = kb.query(query)
        return cache[query]
    return run
