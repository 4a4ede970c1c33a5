"""A dimension derived from others is data (``rkg:derivedFrom`` in ontology/dimensions.ttl):
the compute tier is derived from gpus and time, asked for through them and said so in the word
list; no code names the tier for it."""

from __future__ import annotations

from support import REPO


def test_the_tier_is_derived_from_gpus_and_time_by_the_ontology(kb):
    assert kb.snap["dimensions"]["tier"]["derived_from"] == ["gpus", "time"]
    assert [n for n, d in kb.snap["dimensions"].items() if d["derived_from"]] == ["tier"]
    assert kb.vocab("tier")["dimensions"][0]["derived_from"] == "gpus and time"
    (a,) = kb.query("recommend technique where gpus = 1 and time < 1 day")
    tier = next(c for c in a["constraints"] if c["dimension"] == "tier")
    assert tier["derived_from"] == "gpus and time"


def test_no_reasoner_module_names_the_tier():
    """The reasoner reads ``derived_from`` instead of naming the tier (issue 26); its examples may."""
    for path in sorted((REPO / "src" / "recipekg" / "reason").glob("*.py")):
        code = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.strip().startswith(">>>")]
        assert not [line for line in code if '"tier"' in line], path.name
