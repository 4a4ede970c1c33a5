"""A pick the advice does not separate from others says so (``decision.tied_with``): the same
score from the same rules, for and against. One rule naming two alternatives ("forecasting
transformers (PatchTST, Informer)") ranks them equal, and only the id puts one first."""

from __future__ import annotations

import pytest


def _rules(r: dict) -> tuple:
    return sorted(x["rule"] for x in r["because"]), sorted(x["rule"] for x in r["against"])


def test_one_rule_naming_two_alternatives_ties_them(kb):
    (a,) = kb.query("recommend architecture where data = time-series and samples = 1M")
    d = a["decision"]
    assert d["pick"] == "informer" and d["tied_with"] == ["patchtst"]
    from recipekg.render.answers import render_answers

    assert "pick: Informer (informer), tied with PatchTST (patchtst)" in render_answers([a], "text")


@pytest.mark.parametrize("q", ["recommend architecture where data = time-series and samples = 1M",
                               "recommend technique where hardware = a100",
                               "recommend optimizer where params = 70B and gpus = 8 and hardware = h100",
                               "recommend architecture where data = video",
                               "recommend approach where params = 7B and gpus = 2 and hardware = a100 and prefer = low-memory"])
def test_tied_means_the_same_score_from_the_same_rules(kb, q):
    """Every choice said tied has the pick's score and rules; every other match scoring as
    much has other rules (the stability techniques at 0.23 each have a rule of their own)."""
    (a,) = kb.query(q)
    results = {r["id"]: r for r in a["results"]}
    pick = results[a["decision"]["pick"]]
    tied = set(a["decision"].get("tied_with", ()))
    for r in a["results"]:
        if r["group"] != "matches" or r is pick:
            continue
        same = r["score"] == pick["score"] and _rules(r) == _rules(pick)
        assert same == (r["id"] in tied), r["id"]


def test_a_dimension_that_would_settle_a_tied_pick_is_asked_for(kb):
    """Gradient checkpointing and 8-bit optimizer states tie for low memory; the method settles
    them (with adapters the optimizer's states are the adapters', and checkpointing comes
    first): the answer asks for it, naming both, though the pick's id would not change."""
    (a,) = kb.query("recommend technique where prefer = low-memory")
    assert a["decision"]["pick"] == "gradient-checkpointing"
    assert "quantized-optimizer-states" in a["decision"]["tied_with"]
    (method,) = [q for q in a["ask"] if q["dimension"] == "method"]
    assert set(method["would_change"]) == {"gradient-checkpointing", "quantized-optimizer-states"}
    assert method["text"].startswith("to decide between Gradient checkpointing and 8-bit optimizer states")


def test_explain_of_a_tied_first_choice_says_what_would_decide(kb):
    """Audit 11/21: CLIP, first and tied with the unified multimodal transformer, was told that
    nothing ranks it first; giving whether a pretrained model is available decides between them,
    which the answer now says (recommend's question for the same constraints)."""
    (a,) = kb.query("explain clip where data = multimodal and samples = 5M and gpus = 8 and hardware = a100")
    assert a["rank"] == 1 and [t["id"] for t in a["tied_with"]] == ["unified-multimodal-transformer"]
    (q,) = [q for q in a["settled_by"] if q["dimension"] == "pretrained"]
    assert {"clip", "unified-multimodal-transformer"} <= set(q["would_change"])
    (b,) = kb.query("explain clip where data = multimodal and samples = 5M and gpus = 8 and hardware = a100 "
                    "and pretrained = yes")
    assert b["rank"] == 1 and not b.get("tied_with")


def test_explain_of_a_tied_choice_that_is_not_first_says_it_is_tied(kb):
    """Audit 12/09: PatchTST and Informer tied (the same rules, waiting for the same conditions);
    explain of the second said only "rank 2" and "no change ranks it first". A tie is said at any
    rank, in the group the choice is in."""
    (a,) = kb.query("explain mamba where data = text")
    tied = {t["id"] for t in a.get("tied_with", ())}
    assert a["rank"] > 1 and {"rwkv", "distilled-model"} <= tied  # waiting alike: one rule names them together
    from recipekg.render.explain import render_explain

    assert "tied with" in render_explain(a, md=False).splitlines()[0]


def test_long_horizon_forecasting_starts_from_patchtst(kb):
    """PatchTST's paper reports its long-term accuracy above the Transformer forecasters before it
    (Nie et al., ICLR 2023, Abstract): the weak rule breaks the reference's PatchTST/Informer tie."""
    (a,) = kb.query("recommend architecture where data = time-series and task = forecasting "
                    "and variables = multivariate and horizon = long")
    assert a["decision"]["pick"] == "patchtst"


def test_explain_says_what_puts_an_equal_score_above_it(kb):
    """Audit 14/09: a choice ranked below another at the same score, not tied with it, said only
    "no change found". Now explain names the entry above and the tie-break that separates them
    (here a family before its member); a tied choice says it is tied instead, and the first
    choice has nothing above it."""
    from recipekg.render.answers import render_answers

    (a,) = kb.query("explain ft-transformer where data = tabular and rows = 200k")
    (r,) = kb.query("recommend architecture where data = tabular and rows = 200k")
    ids = [e["id"] for e in r["results"]]
    above = r["results"][ids.index("ft-transformer") - 1]
    assert above["score"] == next(e["score"] for e in r["results"] if e["id"] == "ft-transformer")
    assert a["behind"]["id"] == above["id"] and "family comes before its members" in a["behind"]["by"]
    assert f"It ranks just below {above['label']} ({above['id']}) at the same score" in render_answers([a], "text")
    (tied,) = kb.query("explain patchtst where data = time-series and samples = 1M")
    assert tied.get("tied_with") and "behind" not in tied
    (first,) = kb.query("explain gradient-boosted-trees where data = tabular and rows = 200k")
    assert first["rank"] == 1 and "behind" not in first


def test_a_pick_ahead_of_equals_only_by_its_properties_says_so(kb):
    """Mamba, the decoder, a distilled model and RWKV score alike for a 32K-token generation on a
    tight budget; Mamba is first only because its own property covers the sequence length. The
    decision says so (``ahead_by``), the pick's line too, where it named Mamba alone; nothing is
    said when no equal is behind the pick (a plain first)."""
    from recipekg.render.answers import render_answers
    from support import schema_errors

    (a,) = kb.query("recommend architecture where data = text and task = generation and "
                    "inference-budget = tight and seq-length = 32k top 5")
    d = a["decision"]
    assert d["pick"] == "mamba" and "decoder" in d["ahead_by"]["of"] and d["ahead_by"]["fits"] == ["seq-length"]
    first = next(r for r in a["results"] if r["id"] == "mamba")
    for other in d["ahead_by"]["of"]:
        r = next(x for x in a["results"] if x["id"] == other)
        assert r["score"] == first["score"] and "seq-length" not in (r.get("fits") or ())
    assert "ahead of Decoder-only transformer" in render_answers([a], "text").splitlines()[3]
    assert schema_errors(a, "recommend") == []
    (plain,) = kb.query("recommend architecture where data = tabular and rows = 30k")
    assert "ahead_by" not in plain["decision"]
