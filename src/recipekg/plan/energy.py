"""Energy, cost and emissions of the run: the GPUs' datasheet power × GPU-hours × the data
centre's PUE (``kb/energy.ttl``, LLaMA's accounting), GPU-hours × ``price``, and energy ×
``carbon-intensity``; each missing with its reason when what it needs is not there::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.timing import Timing
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = a100 and price = 2 and carbon-intensity = 0.385")[0], snap)
    >>> t = Timing(inputs.hardware, gpu_hours=Q.point(82432))
    >>> energy_and_cost(ledger, inputs, t)
    >>> [round(ledger.values[n].value) for n in ("energy", "cost", "co2")]   # kWh, USD, kg CO2e
    [36270, 164864, 13964]
"""

from __future__ import annotations

from recipekg.knowledge.terms import RKG
from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger


def energy_and_cost(ledger: Ledger, inputs: Inputs, timing) -> None:
    """Record ``energy`` (kWh), ``cost`` (USD) and ``co2`` (kg), or why each is missing."""
    kb, hours = ledger.kb, timing.gpu_hours
    energy_f, cost_f, co2_f = kb.by_id("training-energy"), kb.by_id("training-cost"), kb.by_id("training-co2")
    hw = timing.hardware
    watts = kb.snap["hardware"].get(hw, {}).get(RKG.powerWatts) if hw else None
    energy = None
    if hours is None:
        _missing(ledger, "energy", energy_f, "no GPU-hours to compute the energy from")
    elif watts is None:
        _missing(ledger, "energy", energy_f,
                 f"the KB has no datasheet power for {kb.label(hw)}" if hw else "no hardware with a datasheet power")
    else:
        energy, env = ledger.compute(energy_f, {"gpu_hours": hours, "gpu_power_watts": Q.point(watts)})
        ledger.add("energy", energy, formula=energy_f, env=env, extra_sources=[kb.snap["nodes"][hw]],
                   label=f"energy: GPU-hours × {show(Q.point(watts), 'W')} ({kb.label(hw)}'s datasheet) × PUE")
    price = inputs.price
    if hours is not None and price is not None:
        q, env = ledger.compute(cost_f, {"gpu_hours": hours, "price": price})
        ledger.add("cost", q, formula=cost_f, env=env)
    else:
        _missing(ledger, "cost", cost_f, "no GPU-hours to price" if hours is None else
                 "no price given: add price = 2.5 (USD per GPU-hour, for example) for the cost")
    intensity = inputs.carbon_intensity
    if energy is not None and intensity is not None:
        q, env = ledger.compute(co2_f, {"energy": energy, "carbon_intensity": intensity})
        ledger.add("co2", q, formula=co2_f, env=env)
    else:
        _missing(ledger, "co2", co2_f, "no energy to compute the emissions from" if energy is None else
                 "no carbon intensity given: add carbon-intensity = 0.385 (kg CO2e per kWh, LLaMA's US average) "
                 "for the emissions")


def _missing(ledger: Ledger, name: str, formula, why: str) -> None:
    ledger.add(name, None, formula=formula, derivation=why, missing=why)
