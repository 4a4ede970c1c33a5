"""A mixture of experts' loss spikes: the router z-loss (ST-MoE, Table 4) beside the generic
recovery, and only for a mixture of experts (audit 8/11)."""

from __future__ import annotations

RULE = "moe-loss-spike-router-z-loss"
BASE = "recommend fix where symptom = loss-spike and method = pretrain and params = 47B and hardware = h100 and gpus = 256"


def _reasons(answer: dict, choice: str) -> list[str]:
    result = next((r for r in answer["results"] if r["id"] == choice), None)
    return [] if result is None else [x["id"] for x in result["because"] if x["match"] == "full"]


def test_a_moe_loss_spike_gets_the_router_z_loss(kb):
    (moe,) = kb.query(BASE + " and architecture = mixture-of-experts")
    assert RULE in _reasons(moe, "z-loss")
    assert "z-loss" in moe["decision"]["runner_ups"]                      # after the recovery: rollback first
    assert moe["decision"]["pick"] == "rollback-checkpoint"
    assert "architecture" not in {u["dimension"] for u in moe["unused"]}
    reason = next(x for r in moe["results"] if r["id"] == "z-loss" for x in r["because"] if x["id"] == RULE)
    assert "stabilizes the model without any quality degradation" in reason["text"]
    assert {s["id"] for s in reason["sources"]} == {"zoph2022"}


def test_a_dense_models_spike_gets_no_router_z_loss(kb):
    (dense,) = kb.query(BASE + " and architecture = decoder")
    assert RULE not in _reasons(dense, "z-loss")
