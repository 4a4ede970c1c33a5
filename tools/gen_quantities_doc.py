"""Print docs/plan-quantities.md from the registry of plan's quantities (plan/quantities.py).

    python tools/gen_quantities_doc.py > docs/plan-quantities.md

tests/plan/test_quantities.py checks the file is what this prints.
"""

from __future__ import annotations

import sys


def document() -> str:
    from recipekg.plan.quantities import METHODS, QUANTITIES

    lines = ["# Plan's quantities", "",
             "Every name a `plan` answer's `quantities` (and the parts of a memory figure) can hold, from the",
             "registry `src/recipekg/plan/quantities.py` (generated: `python tools/gen_quantities_doc.py`).",
             "The unit is the one the quantity is recorded in (others it may be given in after a slash); the",
             "step is the module of `plan/` that owns it; the section, the recipe's section that lists it.",
             "The contract fixes the names marked *fixed*: a plan answer always has them (value null if",
             "unknown). The methods are those the quantity is a figure of: a plan of another method does not",
             "list it, and lists a fixed one without a value and with `not_applicable` (why); a recipe whose",
             "method trains no weight (inference) leaves out the ones of training methods only.", "",
             "| name | unit | what it is | step | recipe section | methods |", "|---|---|---|---|---|---|"]
    for q in QUANTITIES.values():
        unit = " / ".join((q.unit or "(none)", *q.units))
        what = q.label + (" (fixed)" if q.fixed else "") + (f" (a part of `{q.part_of}`)" if q.part_of else "")
        methods = "all" if q.methods == METHODS else ", ".join(q.methods)
        lines.append(f"| `{q.name}` | {unit} | {what} | `{q.step}` | {q.section or ''} | {methods} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(document())
