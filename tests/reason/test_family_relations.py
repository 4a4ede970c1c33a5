"""The decision's family relations (:func:`recipekg.reason.answers.relatives`), found in one pass
over the matches with the ancestors of the alternatives kept as a set, equal the definition:
each match compared with the pick and with every alternative ranked above it (`_akin` pairwise,
the first alternative standing alone when there is no pick), on generated family trees."""

from hypothesis import given, settings
from hypothesis import strategies as st

from recipekg.reason.answers import _akin, relatives


def by_definition(matching: list, pick, nodes) -> dict:
    out: dict = {}
    head = next((r for r in matching if r["id"] == pick), None)
    above = [head] if head else []
    for r in matching:
        if r is head:
            continue
        if head and _akin(head["iri"], r["iri"], nodes):
            out[r["id"]] = "narrower" if head["iri"] in nodes.get(r["iri"], {}).get("ancestors", ()) else "broader"
        elif any(_akin(a["iri"], r["iri"], nodes) for a in above[1:]):
            out[r["id"]] = "kin"
        else:
            above.append(r)
    return out


@st.composite
def trees(draw):
    """Choices C0..Cn, each with a parent among the earlier ones or none (ancestors: the chain
    up), a ranked subset of them in any order, and a pick among them or none."""
    n = draw(st.integers(1, 12))
    parents = [None] + [draw(st.one_of(st.none(), st.integers(0, i - 1))) for i in range(1, n)]
    nodes = {}
    for i in range(n):
        chain, p = [], parents[i]
        while p is not None:
            chain.append(f"C{p}")
            p = parents[p]
        nodes[f"C{i}"] = {"ancestors": chain}
    ranked = draw(st.permutations(list(nodes)))[:draw(st.integers(0, n))]
    matching = [{"id": i.lower(), "iri": i} for i in ranked]
    pick = draw(st.one_of(st.none(), st.sampled_from([m["id"] for m in matching]))) if matching else None
    return matching, pick, nodes


@settings(max_examples=400, deadline=None)
@given(trees())
def test_relatives_equal_the_pairwise_definition(case):
    matching, pick, nodes = case
    assert relatives(matching, pick, nodes) == by_definition(matching, pick, nodes)
