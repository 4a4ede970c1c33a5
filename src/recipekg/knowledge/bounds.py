"""The bounds every number of a property must lie in, read from the ontology and the limits.

A property of ``ontology/`` may carry bounds as a condition does (``rkg:minExclusive``,
``rkg:maxInclusive``, ...: :data:`recipekg.knowledge.dimensions.BOUND_PROPERTIES`): ``rkg:mfu``
in (0, 1], a GPU's memory above 0, a model's layers at least 1. These are claims about the
quantity. A property bounded below at 0 or more is a magnitude plan computes with, so its
numbers must also lie within the product-safety limits of :mod:`recipekg.limits` that a
query's numbers meet: :data:`~recipekg.limits.MAGNITUDES` for every one, and for a model
figure that stands for a whole number plan reads (``rkg:layers`` for ``layers``) that
number's range, :data:`~recipekg.limits.WHOLE_NUMBERS`.

    >>> from recipekg.knowledge.terms import RKG
    >>> b = Bound("min", False, 0.0, "")
    >>> b.holds(0.0), b.holds(4.8e10), b.word()
    (False, True, 'above 0')
    >>> [str(x) for x in limits_of(RKG.layers, [b])]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['above 0', 'at least 1e-30 (the magnitudes plan computes with)', 'at most 1e+40 (the magnitudes plan computes with)',
     'at least 1 (the layers plan computes with)', 'at most 1e+06 (the layers plan computes with)',
     'a whole number (the layers plan computes with)']
"""

from __future__ import annotations

import math

from recipekg.knowledge.dimensions import BOUND_PROPERTIES
from recipekg.limits import MAGNITUDES, WHOLE_NUMBERS
from recipekg.record import Record


class Bound(Record):
    """One end a property's numbers must lie within: ``side`` ``"min"`` or ``"max"``, the
    end included or not, and why (empty for the ontology's own bounds); or ``side``
    ``"whole"``: a count, no fraction (hostile round 9, 017: 32.5 layers)."""

    side: str
    inclusive: bool
    limit: float
    why: str

    def holds(self, v: float) -> bool:
        if self.side == "whole":
            return math.isfinite(v) and v == int(v)
        if self.side == "min":
            return v >= self.limit if self.inclusive else v > self.limit
        return v <= self.limit if self.inclusive else v < self.limit

    def word(self) -> str:
        if self.side == "whole":
            return "a whole number" + (f" ({self.why})" if self.why else "")
        which = {("min", True): "at least", ("min", False): "above", ("max", True): "at most",
                 ("max", False): "below"}[self.side, self.inclusive]
        return f"{which} {self.limit:g}" + (f" ({self.why})" if self.why else "")

    def __str__(self) -> str:
        return self.word()


def ontology_bounds(ix) -> dict[str, list[Bound]]:
    """Property → the bounds the ontology gives it, and the limits those imply."""
    from recipekg.knowledge.terms import OWL

    out: dict[str, list[Bound]] = {}
    for p in ix.instances(OWL.DatatypeProperty):
        own = [Bound(side, inclusive, limit, "") for prop, (side, inclusive) in BOUND_PROPERTIES.items()
               if (limit := ix.number(p, prop)) is not None]
        if own:
            out[p] = limits_of(p, own)
    return out


def limits_of(prop: str, own: list[Bound]) -> list[Bound]:
    """``own`` and, for a property bounded below at 0 or more, the product-safety limits."""
    if not any(b.side == "min" and b.limit >= 0 for b in own):
        return own
    plan = "the magnitudes plan computes with"
    out = own + [Bound("min", True, MAGNITUDES[0], plan), Bound("max", True, MAGNITUDES[1], plan)]
    whole = _whole_number(prop)
    if whole is not None:
        least, most = WHOLE_NUMBERS[whole]
        out += [Bound(side, True, end, f"the {whole} plan computes with")
                for side, end in (("min", least), ("max", most), ("whole", 0.0))]
    return out


def _whole_number(prop: str) -> str | None:
    """The whole number of plan a model figure stands for (``rkg:layers`` → ``layers``)."""
    from recipekg.knowledge.compiler import MODEL_FIGURES, RUN_FIGURES

    name = next((k.replace("_", "-") for k, p in MODEL_FIGURES.items() if p == prop), None)
    if name is None and prop == RUN_FIGURES["attention_width"]:
        name = "hidden"      # heads × head size: a width, bounded as the hidden size is
    name = name or next((k.replace("_", "-") for k, p in RUN_FIGURES.items() if p == prop), None)
    return name if name in WHOLE_NUMBERS else None


def out_of_bounds(v: float, bounds: list[Bound]) -> Bound | None:
    """The first of ``bounds`` that ``v`` breaks, or None."""
    return next((b for b in bounds if not b.holds(v)), None)


def constant_problems(ix):
    """``(constant, message)`` for a constant whose numbers contradict themselves or what they
    set: its ``rkg:low`` above its ``rkg:high``, its value outside them, or a number outside the
    bounds the hyperparameter it sets carries (``rkg:sets kb:hp-warmup-steps``: at least 0; a
    share in [0, 1]), as a condition's bounds are written (hostile extensions, round 6: a warmup
    of -1,000 steps and a weight decay from 1 down to 0.001 reached recipes and configurations).

    >>> from recipekg.knowledge.compiler import Index
    >>> from recipekg.knowledge.rdfio import Lit
    >>> from recipekg.knowledge.terms import RDF, RKG, XSD
    >>> n = lambda x: Lit(str(x), XSD.double)
    >>> ix = Index([("c", RDF.type, RKG.Constant), ("c", RKG.low, n(1.0)), ("c", RKG.high, n(0.001))])
    >>> [m for _, m in constant_problems(ix)]
    ['rkg:low 1 is above rkg:high 0.001']
    """
    from recipekg.knowledge.terms import RDFS, RKG

    def number(s: str, p: str) -> float | None:  # (a malformed or infinite number is another check's)
        try:
            v = ix.number(s, p)
        except ValueError:
            return None
        return v if v is not None and math.isfinite(v) else None

    for c in ix.instances(RKG.Constant):
        value, low, high = (number(c, p) for p in (RKG.value, RKG.low, RKG.high))
        if low is not None and high is not None and low > high:
            yield c, f"rkg:low {low:g} is above rkg:high {high:g}"
        elif value is not None and (low is not None and value < low or high is not None and value > high):
            yield c, f"rkg:value {value:g} is outside its rkg:low-rkg:high range"
        target = ix.one(c, RKG.sets)
        own = [Bound(side, inclusive, limit, "") for prop, (side, inclusive) in BOUND_PROPERTIES.items()
               if target is not None and (limit := number(target, prop)) is not None]
        for name, v in (("rkg:value", value), ("rkg:low", low), ("rkg:high", high)):
            broken = None if v is None else out_of_bounds(v, own)
            if broken is not None:
                label = ix.text(target, RDFS.label) or target.rsplit("/", 1)[-1]
                yield c, f"{name} {v:g} for {label}: it must be {broken.word()}"
                break
        named = ix.one(c, RKG.valueNode)   # (a recipe shows the value by its label: hostile round 9, 007)
        if named is not None and not (isinstance(named, str) and ix.text(named, RDFS.label)):
            yield c, (f"rkg:valueNode {named if not isinstance(named, str) else named.rsplit('/', 1)[-1]} is no node "
                      f"of the KB with a label: a recipe shows a named value by its label")
