"""`plan` against the world (issue 22): the checks behind docs/plan-against-the-world.md and
tests/plan/test_against_the_world.py.

- **held out**: runs the KB never saw (tests/data/published_runs_heldout.tsv), their published
  GPU-hours inside plan's range (the checks of tools/published_runs.py);
- **leave one out**: each run of the KB's MFU evidence (kb/runs.ttl) left out in turn, its
  implied MFU inside the range the other runs give a plan of its size on its GPU;
- **energy**: plan's energy and emissions at a run's published GPU-hours against the published
  MWh and tCO2eq (tests/data/published_energy.tsv, within 5%);
- **llm-analysis**: plan beside llm-analysis 0.2.2 on the same configurations
  (tests/data/llm_analysis.tsv, its figures as llm-analysis printed them; within 10% unless the
  row says why not).

>>> sorted(PARTS)
['activations', 'kv_cache', 'states', 'total', 'weights']
"""
from __future__ import annotations

import csv

import published_runs

REPO = published_runs.REPO
LLM = REPO / "tests" / "data" / "llm_analysis.tsv"
LLM_TOLERANCE = 0.10
#: llm-analysis column → the parts of plan's memory per GPU that add up to it
PARTS = {"weights": ("weights",), "states": ("gradients", "master_weights", "optimizer_states"),
         "activations": ("activations", "rebuilt_layer", "logits"), "total": None, "kv_cache": ("kv_cache",)}


def load(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def differs(row: dict) -> set[str]:
    return {c.strip() for c in row.get("differs", "").split(",") if c.strip()}


def _parts(answer: dict) -> dict:
    q = {x["name"]: x for x in answer["quantities"]}
    return {p["name"]: p["value"] for p in q["memory_per_gpu"]["per_gpu_parts"]}, q


def evaluate_llm(run, row: dict) -> dict:
    """plan's figure, llm-analysis's and their ratio for each column the row has."""
    parts, q = _parts(run(row["plan_query"]))
    out = {}
    for column, names in PARTS.items():
        theirs = row.get(f"llm_{column}")
        if not theirs:
            continue
        if names is None:   # llm-analysis keeps no headroom and no ZeRO-3 buffer in its total
            mine = q["memory_per_gpu"]["value"] - parts.get("headroom", 0) - parts.get("buffers", 0)
        else:
            mine = sum(parts.get(n, 0) for n in names)
        ratio = mine / float(theirs)
        out[column] = {"plan": mine, "llm_analysis": float(theirs), "ratio": ratio,
                       "ok": abs(ratio - 1) <= LLM_TOLERANCE}
    for column, name in (("prefill_seconds", "prefill_seconds"), ("decode_seconds", "decode_seconds_per_token")):
        theirs = row.get(f"llm_{column}")
        if theirs:  # plan's is a lower bound; llm-analysis estimates with its efficiency factors
            mine = q[name]["value"]
            out[column] = {"plan": mine, "llm_analysis": float(theirs), "ratio": mine / float(theirs),
                           "ok": mine <= float(theirs) <= 2 * mine}
    return out


def leave_one_out(ledger_factory) -> list[dict]:
    """Each published run of the KB left out of the MFU evidence: its implied MFU against the
    range the others give a plan of its size on its GPU."""
    from recipekg.formula.expr import Q
    from recipekg.plan.utilisation import evidence, points

    ledger = ledger_factory()
    out = []
    for p in points(ledger):
        if p["basis"] != "total GPU-hours":
            continue
        hw = p["item"]["hardware"]
        others = evidence(ledger, hw, Q.point(p["params"]), exclude=(p["fact"],))
        values = [x["mfu"] for x in others]
        low, high = min(values), max(values)
        out.append({"fact": p["fact"], "label": p["label"], "hardware": p["hardware"], "mfu": p["mfu"],
                    "low": low, "high": high, "ok": low <= p["mfu"] <= high, "others": len(others)})
    return out
