"""The recency stamp reads dates and arXiv ids without regular expressions (the cold path
does not import :mod:`re`): the hand-written checks accept exactly what the patterns did."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from recipekg.reason.recency import _arxiv_month, _is_date

DATE = re.compile(r"^\d{4}-\d\d-\d\d$")
ARXIV = re.compile(r"^(\d\d)(\d\d)\.\d{4,5}")

# digits (ASCII and others), the separators, and anything
TEXT = st.text(st.sampled_from("0123456789-.\n/a٣²") | st.characters(), max_size=14)
SHAPED = st.builds(lambda a, b, c, d, e: a + b + c + d + e, st.text("0123456789٣²", min_size=3, max_size=5),
                   st.sampled_from(["-", ".", ""]), st.text("0123456789٣", max_size=6),
                   st.sampled_from(["-", ".", ""]), st.text("0123456789\n", max_size=4))


@given(TEXT | SHAPED)
def test_dates_as_the_pattern(text):
    assert _is_date(text) == bool(DATE.match(text))


@given(TEXT | SHAPED)
def test_arxiv_months_as_the_pattern(text):
    m = ARXIV.match(text)
    assert _arxiv_month(text) == (m.group(1) + m.group(2) if m else None)
