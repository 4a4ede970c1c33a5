"""Interval arithmetic of numeric constraints (recipekg.reason.facts): the bisecting
``intersect_all`` against the pairwise definition, on interval lists built the way
constraints build them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from recipekg.errors import RangeError
from recipekg.reason.facts import INF, covers, exclude_points, intersect, intersect_all

_POINTS = st.integers(-6, 6).map(float)


@st.composite
def _constraint(draw):
    """The intervals one constraint stands for (recipekg.reason.resolve._merge_numeric)."""
    op = draw(st.sampled_from(["=", "<", "<=", ">", ">=", "!=", "between", "in"]))
    v = draw(_POINTS)
    if op == "between":
        w = draw(_POINTS)
        return [(min(v, w), True, max(v, w), True)]
    if op == "in":
        return [(x, True, x, True) for x in sorted(set(draw(st.lists(_POINTS, min_size=1, max_size=5))))]
    return {"=": [(v, True, v, True)], "<": [(-INF, False, v, False)], "<=": [(-INF, False, v, True)],
            ">": [(v, False, INF, False)], ">=": [(v, True, INF, False)],
            "!=": [(-INF, False, v, False), (v, False, INF, False)]}[op]


def _pairwise(a, b):
    return sorted(i for x in a for y in b if (i := intersect(x, y)) is not None)


@settings(max_examples=500, deadline=None)
@given(st.lists(_constraint(), min_size=1, max_size=12))
def test_bisecting_intersection_equals_the_pairwise_one(constraints):
    fast = slow = constraints[0]
    for new in constraints[1:]:
        fast, slow = intersect_all(fast, new), _pairwise(slow, new)
        assert fast == slow, (constraints, new)
        assert all(x[2] <= y[0] for x, y in zip(fast, fast[1:])), "sorted and disjoint"
        if not slow:
            break


def test_many_exclusions_leave_every_gap_between_them():
    intervals = [(-INF, False, INF, False)]
    for v in range(1000):
        intervals = intersect_all(intervals, [(-INF, False, float(v), False), (float(v), False, INF, False)])
    assert len(intervals) == 1001
    assert intervals[0] == (-INF, False, 0.0, False) and intervals[500] == (499.0, False, 500.0, False)


@settings(max_examples=500, deadline=None)
@given(st.lists(_constraint(), min_size=1, max_size=6), st.lists(_POINTS, max_size=8))
def test_excluding_points_at_once_equals_one_not_equal_at_a_time(constraints, points):
    intervals = constraints[0]
    for new in constraints[1:]:
        intervals = intersect_all(intervals, new)
    one_by_one = intervals
    for v in points:
        one_by_one = intersect_all(one_by_one, [(-INF, False, v, False), (v, False, INF, False)])
    assert exclude_points(intervals, sorted(set(points))) == one_by_one
    for v in points:
        assert covers(intervals, v) == any(intersect(i, (v, True, v, True)) for i in intervals)


def test_a_contradiction_by_not_equal_is_reported_at_the_constraint_that_empties_the_range(kb):
    statement = "recommend architecture where rows in (10, 20) and rows != 10 and rows != 5 and rows != 20 and rows != 7"
    with pytest.raises(RangeError) as info:
        kb.query(statement)
    assert info.value.column == statement.index("rows != 20") + 1
    (left,) = kb.query("recommend architecture where data = tabular and rows in (10k, 20k, 90k) "
                       "and rows != 10k and rows != 20k")
    (same,) = kb.query("recommend architecture where data = tabular and rows = 90k")
    assert [r["id"] for r in left["results"]] == [r["id"] for r in same["results"]]
    assert left["results"][0]["score"] == same["results"][0]["score"]


@pytest.mark.parametrize("statement, value, says", [
    ("recommend approach where gpus = 2.5", "2.5", "counts whole things"),
    ("explain ddp where gpus = 0 and params = 7B", "0", "must be between 1 and"),
    ("recommend optimizer where batch-size in (512, 0.5)", "0.5", "counts whole things"),
    ("plan where params = 7B and gpus = 2.5", "2.5", "counts whole things"),
])
def test_a_count_of_whole_things_is_a_whole_number_in_range_in_every_statement(kb, statement, value, says):
    """GPUs, a batch of sequences, layers: a fraction or a number out of range is the user's error
    at the value (exit 2 on the command line) in recommend and explain as in plan, never an
    answer that picks data parallelism for 2.5 GPUs; a bound (gpus < 2.5) is a bound and stays."""
    with pytest.raises(RangeError) as info:
        kb.query(statement)
    assert says in str(info.value) and info.value.column == statement.rindex(value) + 1
    (bound,) = kb.query("recommend approach where gpus < 2.5")
    assert bound["constraints"][0]["op"] == "<"
