"""explain ranks a choice of a kind whose choices are parts of one run (approach: training from
scratch beside DDP) among its recipe section's choices, as recommend decides its pick and the
picks alongside it: the choice recommend names alongside is first there, and no change is
proposed to put it first among the other sections' choices (32 H100s swapped for DGX Sparks)."""

from __future__ import annotations

WHERE = "where params = 7B and gpus = 32 and hardware = h100 and time = 2 weeks"


def test_the_pick_alongside_is_first_of_its_section(kb):
    (rec,) = kb.query(f"recommend approach {WHERE}")
    picks = {e["section"]: e["pick"] for e in rec["decision"].get("alongside", ())}
    assert picks.get("approach") == "train-from-scratch" and rec["decision"]["pick"] != "train-from-scratch"
    (a,) = kb.query(f"explain train-from-scratch {WHERE}")
    assert a["rank"] == 1 and a["section"] == "approach" and a["ranks"]["approach"] == 1
    assert a["would_rank_first_if"] == []
    from recipekg.render.explain import render_explain

    assert "rank 1 among approach choices in its section, approach" in render_explain(a, False)


def test_a_kind_without_sections_ranks_among_every_choice(kb):
    (a,) = kb.query("explain vit where data = images and samples = 3000")
    assert "section" not in a and a["rank"] > 1
