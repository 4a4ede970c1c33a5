"""Bandwidth: the hardware's ridge point (FLOPs per byte moved) and whether the reference
calls it bandwidth-limited.

    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> spark, h100 = (snap["dimensions"]["hardware"]["values"][h] for h in ("dgx-spark", "h100"))
    >>> bw = bandwidth(ledger, spark)
    >>> bw["ridge_intensity"], bw["bandwidth_bound"], bw["threshold"]["symbol"]
    (None, True, 'bandwidth_bound_intensity')
    >>> bandwidth(ledger, h100)["bandwidth_bound"], ledger.quantities[-1]["name"]
    (False, 'ridge_intensity')
"""

from __future__ import annotations

from recipekg.knowledge.terms import RKG
from recipekg.formula.expr import Q
from recipekg.plan.figures import rounded, show
from recipekg.plan.kbview import const_json
from recipekg.plan.ledger import Ledger
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.plan import Bandwidth


def bandwidth(ledger: Ledger, hardware: str | None) -> Bandwidth | None:
    """The answer's ``bandwidth`` (None without hardware); records the ridge point."""
    if hardware is None:
        return None
    kb = ledger.kb
    figures = kb.snap["hardware"].get(hardware, {})
    peak, bw = kb.peak(hardware), figures.get(RKG.bandwidthBytesPerSecond)
    label = kb.label(hardware)
    out: Bandwidth = {"hardware": kb.node_id(hardware), "ridge_intensity": None, "threshold": None,
           "bandwidth_bound": None, "sources": [], "text": ""}
    ridge_f = kb.find("ridge_intensity", "bandwidth")
    texts = []
    if ridge_f is not None and peak and bw:
        ridge, env = ledger.compute(ridge_f, {"bf16_peak": Q.point(peak), "bandwidth": Q.point(bw)})
        ledger.add("ridge_intensity", ridge, formula=ridge_f, env=env,
                   extra_sources=[kb.snap["nodes"][hardware]])
        out["ridge_intensity"] = rounded(ridge.value)
        texts.append(f"{label}'s ridge point is {show(ridge, 'FLOPs/byte')}: operations doing fewer FLOPs per "
                     f"byte moved are memory-bound on it, more are compute-bound")
    elif bw:
        texts.append(f"{label}'s ridge point cannot be computed: the KB has its bandwidth "
                     f"({units.amount(bw, unit='bytes')}/s) but no bf16 peak")
    thresholds = [c for c in kb.constants_for(hardware) if c["quantity"] == "arithmetic-intensity"]
    if thresholds:
        t = thresholds[0]
        out["threshold"] = {**const_json(t), "section": kb.section(t)}
        out["bandwidth_bound"] = True
        out["sources"] = kb.sources(t)
        texts.append(f"{kb.voice(t, 'the reference')} calls {label} bandwidth-limited: operations below about "
                     f"{units.grouped(t['value'])} FLOPs/byte are held back by its memory bandwidth (larger "
                     f"batches and wider models raise the intensity)")
    else:
        out["bandwidth_bound"] = False
        texts.append(f"the reference does not call {label} bandwidth-limited")
    out["text"] = "; ".join(texts)
    return out
