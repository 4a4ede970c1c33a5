"""The registry of plan's quantities (plan/quantities.py) is the one place a quantity is named:
each entry's step module records it, the ledger refuses a name or a unit the registry lacks,
the recipe's sections list plan's quantities by the registry's ``section``, and
docs/plan-quantities.md is the registry's table."""

from __future__ import annotations

import importlib
import sys

import pytest

from recipekg.plan.quantities import FIXED, QUANTITIES, in_section, unit_of
from support import REPO


def test_the_document_is_the_registrys_table():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from gen_quantities_doc import document
    finally:
        sys.path.pop(0)
    assert (REPO / "docs" / "plan-quantities.md").read_text(encoding="utf-8") == document(), \
        "regenerate: python tools/gen_quantities_doc.py > docs/plan-quantities.md"


@pytest.mark.parametrize("name", sorted(QUANTITIES))
def test_each_quantitys_step_records_it(name):
    q = QUANTITIES[name]
    source = (REPO / "src" / "recipekg" / "plan" / f"{q.step}.py").read_text(encoding="utf-8")
    spelled = name if q.part_of != "memory" else name.removeprefix("memory_")  # memory.py names its parts memory_<part>
    assert f'"{spelled}"' in source or f"'{spelled}'" in source, f"{name} is not recorded in plan/{q.step}.py"
    importlib.import_module(f"recipekg.plan.{q.step}")


def test_the_ledger_takes_only_registered_names_in_their_units(snap):
    from recipekg.formula.expr import Q
    from recipekg.plan.kbview import KBView
    from recipekg.plan.ledger import Ledger

    ledger = Ledger(KBView(snap))
    assert ledger.add("flops", Q.point(1e21))["unit"] == "FLOPs"
    assert ledger.add("mfu", Q.point(0.4), "fraction of fp8 peak")["unit"] == "fraction of fp8 peak"
    with pytest.raises(ValueError, match="no quantity 'flop'"):
        ledger.add("flop", Q.point(1e21))
    with pytest.raises(ValueError, match="is in 'FLOPs', not 'bytes'"):
        ledger.add("flops", Q.point(1e21), "bytes")
    assert unit_of("gpu_hours") == "GPU-hours" and set(FIXED) <= set(QUANTITIES)


def test_every_quantity_of_an_answer_is_registered_in_its_unit(kb):
    for text in ("plan where params = 7B and hardware = h100 and gpus = 64 and time < 2 weeks and price = 2",
                 "plan where model = llama-2-70b and method = qlora and hardware = rtx-4090",
                 "plan where model = llama-2-7b and method = inference and hardware = a100 and batch-size = 8",
                 "plan where params = 1B and unique-tokens = 4B and epochs = 6 and inference-tokens = 2T"):
        (a,) = kb.query(text)
        for q in a["quantities"]:
            spec = QUANTITIES[q["name"]]
            assert q["unit"] in (spec.unit, *spec.units), (text, q["name"], q["unit"])
            for part in q.get("parts", []) + q.get("per_gpu_parts", []):
                assert part["name"] in QUANTITIES and part["unit"] == QUANTITIES[part["name"]].unit


def test_the_recipe_lists_plans_quantities_by_their_section(kb):
    (r,) = kb.query("recipe where data = text and task = generation and method = pretrain and params = 7B "
                    "and hardware = h100 and gpus = 64 and price = 2")
    planned = {q["name"] for q in r["plan"]["quantities"] if q["value"] is not None}
    for section in r["sections"]:
        shown = [i["quantity"] for i in section["items"] if "quantity" in i and i["value"] is not None]
        assert shown == [q.name for q in in_section(section["name"]) if q.name in planned], section["name"]
        for i in section["items"]:  # what plan could not compute is said in its section, with why
            if "quantity" in i and i["value"] is None:
                assert i["quantity"] in [q.name for q in in_section(section["name"])] and i["text"].startswith("not computed")
