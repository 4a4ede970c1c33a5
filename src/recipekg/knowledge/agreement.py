"""Figures of one node that must agree with each other, whichever file states them: a model
configuration's shape (its active parameters within its parameters, its key-value heads a
divisor of its heads, its routed experts within its experts) and a published run's GPU-hours
(no faster than the hardware's dense peak: an implied MFU of at most 1). Each bound on its own
(``rkg:maxInclusive`` in the ontology) cannot say this; an extension's configuration that
breaks it would reach plan, whose error could then only point at the query (held-out hostile
round 13, h13 and h35).

    >>> from recipekg.knowledge.compiler import Index
    >>> from recipekg.knowledge.rdfio import Lit
    >>> from recipekg.knowledge.terms import RDF, RKG, XSD
    >>> m = "https://w3id.org/recipekg/id/odd"
    >>> n = lambda v: Lit(str(v), XSD.double)
    >>> ix = Index([(m, RDF.type, RKG.ModelConfiguration), (m, RKG.params, n(1e6)), (m, RKG.activeParams, n(5e6)),
    ...             (m, RKG.attentionHeads, n(7)), (m, RKG.kvHeads, n(2))])
    >>> [message for _, message in disagreements(ix)]  # doctest: +NORMALIZE_WHITESPACE
    ['rkg:activeParams (5e+06) exceeds rkg:params (1e+06): a token uses at most every parameter',
     'rkg:kvHeads (2) does not divide rkg:attentionHeads (7): each key-value head serves a whole group of query heads']
"""

from __future__ import annotations

import math

from recipekg.knowledge.compiler import Index
from recipekg.knowledge.terms import RKG

_FLOPS_PER_PARAM_TOKEN = "c_flops_per_param_token"
_ATTENTION_FLOPS = "c_mfu_attention_flops_per_layer_ctx_width"


def disagreements(ix: Index):
    """``(subject, message)`` for each node whose figures contradict each other."""
    yield from _shapes(ix)
    yield from _runs(ix)


def _shapes(ix: Index):
    for m in ix.instances(RKG.ModelConfiguration):
        params, active = _n(ix, m, RKG.params), _n(ix, m, RKG.activeParams)
        if params and active and active > params:
            yield (m, f"rkg:activeParams ({active:g}) exceeds rkg:params ({params:g}): a token uses at most every parameter")
        heads, kv = _n(ix, m, RKG.attentionHeads), _n(ix, m, RKG.kvHeads)
        if heads and kv and (kv > heads or heads % kv):
            yield (m, f"rkg:kvHeads ({kv:g}) does not divide rkg:attentionHeads ({heads:g}): each key-value head "
                      "serves a whole group of query heads")
        experts, routed = _n(ix, m, RKG.experts), _n(ix, m, RKG.expertsPerToken)
        if experts and routed and routed > experts:
            yield (m, f"rkg:expertsPerToken ({routed:g}) exceeds rkg:experts ({experts:g}): a token is routed among "
                      "the experts a layer has")


def _constant(ix: Index, symbol: str) -> float | None:
    return next((ix.number(c, RKG.value) for c in ix.instances(RKG.Constant) if ix.text(c, RKG.symbol) == symbol), None)


def _runs(ix: Index):
    six, twelve = _constant(ix, _FLOPS_PER_PARAM_TOKEN), _constant(ix, _ATTENTION_FLOPS) or 0.0
    if not six:
        return
    for r in ix.instances(RKG.PublishedRun):
        params, tokens, hours = _n(ix, r, RKG.params), _n(ix, r, RKG.tokens), _n(ix, r, RKG.gpuHours)
        hw = ix.one(r, RKG.onHardware)
        peak = hw and (_n(ix, hw, RKG.bf16PeakFlopsPerSecond) or _n(ix, hw, RKG.fp16PeakFlopsPerSecond))
        if not (params and tokens and hours and peak):
            continue
        shape = [_n(ix, r, p) for p in (RKG.layers, RKG.attentionWidth, RKG.trainingSeqLength)]
        attention = twelve * math.prod(shape) * tokens if all(shape) else 0.0   # type: ignore[arg-type]
        mfu = (six * params * tokens + attention) / (hours * 3600 * peak)
        if 1 < mfu < math.inf:  # (figures whose product overflows are beyond the bounds validate refuses)
            counted = f"{six:g} · params · tokens" + (" and the attention's FLOPs" if attention else "")
            yield (r, f"rkg:gpuHours ({hours:g}) imply an MFU of {mfu:.3g} ({counted} over the "
                      f"hours at the hardware's dense peak): a run cannot compute faster than the peak; check the "
                      "figures against their source")


def _n(ix: Index, s: str, p: str) -> float | None:
    try:
        return ix.number(s, p)
    except ValueError:
        return None  # (an ill-typed number: validate's literal check reports it)
