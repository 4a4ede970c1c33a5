"""Where a ``recommend`` answer ranks each choice of its kind the user gave (``decision.yours``):
their model (an architecture), their optimizer, the approach their method is. Asked for an
architecture with Mistral 7B and 2,000 examples, the answer picked BERT tied with GPT and never
said where the user's own model stood; a given optimizer no optimizer rule reads was listed as
"not used" while the answer said the advice was against it."""

from __future__ import annotations

from urllib.parse import quote

import pytest


def _answer(kb, text: str) -> dict:
    (a,) = kb.query(text)
    return a


def _dimensions(a: dict, key: str) -> set[str]:
    return {u["dimension"] for u in a[key]}


def test_a_model_no_rule_names_ranks_through_its_nearest_family(kb):
    a = _answer(kb, "recommend architecture where model = mistral-7b and samples = 2k")
    (y,) = a["decision"]["yours"]
    decoder = next(r for r in a["results"] if r["id"] == "decoder")
    assert (y["choice"], y["dimension"], y["family"]["id"]) == ("mistral-7b", "architecture", "decoder")
    assert (y["rank"], y["group"], y["score"]) == (decoder["rank"], decoder["group"], decoder["score"])
    assert not any(r["id"] == "mistral-7b" for r in a["results"]), "no rule names the model itself"
    assert "is not ranked itself; its family Decoder-only transformer (decoder) ranks" in y["text"]
    assert "waits for task" in y["text"], decoder.get("waits_for")


def test_a_choice_ranked_itself_says_its_rank(kb):
    a = _answer(kb, "recommend optimizer where optimizer = adamw and architecture = vit")
    (y,) = a["decision"]["yours"]
    adamw = next(r for r in a["results"] if r["id"] == "adamw")
    assert "family" not in y and (y["rank"], y["group"]) == (adamw["rank"], "matches")
    assert y["text"] == f"your choice, AdamW (adamw), ranks {'1st' if adamw['rank'] == 1 else adamw['rank']} " \
                        "(matches your constraints)"


def test_a_choice_no_advice_reaches_is_said_and_its_constraint_is_used(kb):
    a = _answer(kb, "recommend optimizer where optimizer = muon and data = tabular")
    (y,) = a["decision"]["yours"]
    assert "rank" not in y and not any(r["id"] == "muon" for r in a["results"])
    assert y["text"] == "your choice, Muon (muon): no optimizer advice in the KB speaks for or against it here"
    assert "optimizer" not in _dimensions(a, "unused"), "the answer says where the user's optimizer stands"


def test_a_choice_advised_against_is_said_once_and_its_constraint_is_used(kb):
    a = _answer(kb, "recommend optimizer where optimizer = sgd-momentum and architecture = vit and method = pretrain")
    assert a["decision"]["against_yours"] == ["sgd-momentum"]
    assert "yours" not in a["decision"], "the line against it says where it stands"
    assert "optimizer" not in _dimensions(a, "unused")


def test_a_method_names_no_approach_as_the_users(kb):
    """``method = full-fine-tune`` is how the model trains, which full fine-tuning and continued
    pretraining both do: naming it chooses neither approach."""
    a = _answer(kb, "recommend approach where method = full-fine-tune and samples = 50 and data = text")
    assert "yours" not in a["decision"]


@pytest.mark.parametrize("text", [
    "recommend optimizer where architecture = cnn and data = images",  # an architecture, asked for an optimizer
    "recommend architecture where data = tabular and rows = 30k",      # no choice given
])
def test_nothing_is_yours_without_a_choice_of_the_kind(kb, text):
    assert "yours" not in _answer(kb, text)["decision"]


def test_it_is_said_where_the_answer_makes_only_its_first_results(kb):
    """An answer makes the results it shows in full and counts the rest; the user's choice and
    its families are made wherever they rank, so the line is the same with 2 results made."""
    from unittest import mock

    from recipekg.query.parser import parse
    from recipekg.reason import recommend as recommend_module

    text = "recommend architecture where model = mistral-7b and samples = 2k"
    full = recommend_module.recommend(parse(text)[0], kb.snap)["decision"]["yours"]
    with mock.patch.object(recommend_module, "SHOWN", 2):
        lean = recommend_module.recommend(parse(text + " top 1")[0], kb.snap)
    assert lean["decision"]["yours"] == full and full[0]["rank"] > 2, full
    assert full[0]["text"].endswith("(would apply: it waits for task)")


def test_every_surface_says_it(kb):
    from recipekg.render.answers import render_answers
    from recipekg.web.app import create_app

    query = "recommend architecture where model = mistral-7b and samples = 2k"
    answers = kb.query(query)
    text = render_answers(answers, "text", detail=False).splitlines()
    at = next(i for i, line in enumerate(text) if line.startswith("pick: "))
    assert text[at + 1].startswith("your choice, Mistral 7B (mistral-7b), is not ranked itself")
    assert "your choice, Mistral 7B (mistral-7b), is not ranked itself" in render_answers(answers, "markdown")
    page = create_app(kb).test_client().get("/?q=" + quote(query)).get_data(as_text=True)
    assert '<p class="shortfall yours">Your choice, Mistral 7B (mistral-7b), is not ranked itself' in page


def test_a_match_advised_against_is_not_said_to_match(kb):
    """A choice of the user's that ranks with a negative score but no fully matching reason
    against it (so not ``against_yours``) reads as advised against, as its results group does."""
    from recipekg.reason.elsewhere import yours
    from recipekg.reason.recommend import rank
    from recipekg.reason.resolve import facts_of
    from recipekg.query.parser import parse

    facts = facts_of(parse("recommend optimizer where optimizer = adamw")[0].constraints, kb.snap)
    results = [dict(r, score=-0.3) if r["id"] == "adamw" else r for r in rank("optimizer", facts, kb.snap)]
    (y,) = yours("optimizer", facts, results, kb.snap, [])
    assert y["text"].endswith("(advised against for your constraints)"), y["text"]


def test_a_member_of_a_family_entry_is_said_to_rank_in_it(kb):
    a = _answer(kb, "recommend optimizer where optimizer = lamb and batch-size = 64k and method = pretrain")
    (y,) = a["decision"]["yours"]
    entry = next(r for r in a["results"] if "lamb" in {m["id"] for m in r.get("members", ())})
    assert y["rank"] == entry["rank"] and entry["id"] != "lamb"
    assert f"ranks {'1st' if entry['rank'] == 1 else entry['rank']} in the entry of {entry['label']} ({entry['id']})" \
        in y["text"], y["text"]


@pytest.mark.parametrize("query, mine", [
    ("explain adamw where optimizer = sgd-momentum and architecture = vit and method = pretrain", "sgd-momentum"),
    ("explain gradient-boosted-trees where architecture = tabpfn and data = tabular and rows = 5k", "tabpfn"),
])
def test_explain_says_where_the_users_own_choice_ranks(kb, query, mine):
    """``explain X`` for a user who gave another choice of X's kind (their optimizer) says where
    the ranking puts theirs, as recommend's ``decision.yours`` does (the same text), and their
    constraint is used, not listed as one no advice depends on."""
    from urllib.parse import quote

    from recipekg.render.answers import render_answers
    from recipekg.web.app import create_app

    answers = kb.query(query)
    (a,) = answers
    (y,) = a["yours"]
    assert y["choice"] == mine
    (r,) = kb.query("recommend " + a["kind"] + " where " + query.split(" where ", 1)[1])
    said = {x["choice"]: x for x in r["decision"].get("yours", ())}
    assert y == said[mine] if mine in said else mine in r["decision"]["against_yours"]  # (said there with its reason)
    assert a["unused"] == [] or all(u["dimension"] not in ("optimizer", "architecture") for u in a["unused"])
    assert y["text"] in render_answers(answers, "text", detail=False)
    page = create_app(kb).test_client().get("/?q=" + quote(query)).get_data(as_text=True)
    assert f'<p class="shortfall yours">Your choice, {y["text"].split(", ", 1)[1].split(")", 1)[0]})' in page


def test_explain_of_the_users_own_choice_says_nothing_more(kb):
    (a,) = kb.query("explain adamw where optimizer = adamw")
    assert "yours" not in a and all(u["dimension"] != "optimizer" for u in a["unused"])
