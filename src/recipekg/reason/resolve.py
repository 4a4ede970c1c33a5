"""Resolve every name of a parsed statement against the ontology's vocabulary.

Kinds (``architectures`` → ``architecture``), choices (``lgbm``, ``"8-bit Adam"``),
dimension names and aliases become canonical names; categorical values become IRIs;
numbers and quantities are checked against the dimension's kind and range. Constraints
become one :class:`~recipekg.reason.facts.Facts` per dimension, merged over all
constraints on it, plus what they imply (:mod:`recipekg.reason.derive`)::

    >>> facts = facts_of(parse("recommend x where rows between 10k and 50k")[0].constraints, snap)
    >>> facts["samples"].intervals
    [(10000.0, True, 50000.0, True)]

Errors (unknown names, a number where a name is meant, ``between 10 and 5``) point at the
offending token and suggest the closest known names.
"""

from __future__ import annotations

import math

from recipekg.errors import RangeError, VocabularyError, clipped, closest
from recipekg.knowledge.derived import once
from recipekg.limits import WHOLE_NUMBERS, whole_number_problem
from recipekg.names import is_misspelling, slug
from recipekg.query.ast import Constraint, Name, Number, Quantity, String
from recipekg.query.literals import BITS_PER_BYTE
from recipekg.reason.derive import derive
from recipekg.reason.facts import INF, Facts, constraint_json, covers, exclude_points, intersect_all

# The quantities each kind of dimension takes (by the unit kind of the parsed quantity) and
# what one of them is in the dimension's own unit: bits are converted to bytes. A count
# measured in a unit (QUDT) takes quantities of that unit as well as plain numbers.
_BYTES = {"bytes": 1, "bits": BITS_PER_BYTE}
_ACCEPTS = {"bytes": _BYTES, "duration": {"hours": 1}, "ratio": {"ratio": 1}}
_ACCEPTS_BY_UNIT = {"BYTE-PER-SEC": {"bytes/s": 1, "bits/s": BITS_PER_BYTE},
                    "BYTE": {"bytes": 1, "bits": BITS_PER_BYTE, "ratio": 1},  # a size, or a share of one
                    "FLOP": {"flops": 1, "flop": 1}, "FLOP-PER-SEC": {"flop/s": 1, "flop": 1}}
_UNIT_HINT = {"bytes": "a size such as 80GB", "duration": "a duration such as 12h or 3 days",
              "ratio": "a fraction such as 0.4 or 40%", "count": "a number such as 30k or 7B",
              "BYTE-PER-SEC": "a bandwidth such as 3.35TB/s or 273 GB/s",
              "BYTE": "a size such as 4GB or a share such as 10%",
              "FLOP": "a compute budget such as 1e21, 1e21 FLOPs or 10 PF-days",
              "FLOP-PER-SEC": "a rate such as 989T, 989 TFLOPS or 989 TFLOP/s"}
_KIND_WORDS = {"bytes": "a size", "bits": "a size in bits", "bytes/s": "a bandwidth",
               "bits/s": "a bandwidth in bits", "hours": "a duration", "ratio": "a percentage",
               "flops": "an amount of compute (FLOPs)", "flop/s": "a rate (FLOP/s)", "flop": "FLOPS"}
_PREFIX_WORDS = {"k": "kilo", "m": "mega", "g": "giga", "t": "tera", "p": "peta",
                 "ki": "kibi", "mi": "mebi", "gi": "gibi", "ti": "tebi", "pi": "pebi"}


def _accepts(dim: dict) -> dict[str, float]:
    """The unit kinds of quantities ``dim`` takes, each with its divisor into the dim's unit."""
    if dim["kind"] == "count":
        return _ACCEPTS_BY_UNIT.get(dim.get("unit") or "", {})
    return _ACCEPTS.get(dim["kind"], {})


def _hint(dim: dict) -> str:
    return _UNIT_HINT.get(dim.get("unit") or "", _UNIT_HINT[dim["kind"]]) if dim["kind"] == "count" \
        else _UNIT_HINT[dim["kind"]]


def bits_note(value: Quantity) -> str:
    """What a quantity in bits means: ``80Gb`` -> 'Gb is gigabits'."""
    unit = value.text.lstrip("0123456789_.eE+- \t")
    prefix = unit.lower().split("b", 1)[0]
    per = " per second" if unit.endswith(("/s", "/S")) else ""
    return f"{unit} is {_PREFIX_WORDS.get(prefix, '')}bits{per}"


def facts_of(constraints: tuple[Constraint, ...], snap: dict) -> dict[str, Facts]:
    """The facts a statement's constraints state and imply: resolved, merged, derived."""
    return derive(resolve_constraints(constraints, snap), snap)


def resolve_kind(word, snap: dict) -> str:
    """``architectures`` → ``architecture``; an unknown kind is an error with suggestions."""
    kinds = snap["kinds"]
    text = word.text
    for candidate in (text, text[:-1] if text.endswith("s") else None, text[:-2] if text.endswith("es") else None):
        if candidate in kinds:
            return candidate
    raise VocabularyError.at(word.pos, f"unknown kind '{text}'",
                             expected=["one of " + ", ".join(sorted(kinds))],
                             suggestions=closest(text, kinds))


def suggest(typed: str, spellings: dict, name_of, n: int = 3) -> list[str]:
    """What ``typed`` may have meant among ``spellings`` (spelling -> what it names), each
    named once by ``name_of(what)`` (an alias collapses to its choice): the closest spellings
    first, then those holding ``typed`` (or, typed as a number, its digits: ``4090`` ->
    ``rtx-4090``, ``70b`` -> ``llama-2-70b``).

    >>> suggest("4090", {"rtx-4090": "a", "rtx-3090": "b", "a100": "c"}, str)
    ['a']
    >>> suggest("lightgmb", {"lightgbm": "x", "light-gbm": "x", "lgbm": "x"}, lambda v: "lightgbm")
    ['lightgbm']
    """
    key = typed.lower()
    found = [spellings[c] for c in closest(key, spellings, n=2 * n)]
    if len(key) >= 3:
        found += [v for c, v in sorted(spellings.items()) if key in c.lower()]
        digits = "".join(ch for ch in key if ch.isdigit())
        if len(digits) >= 3 and digits != key:
            found += [v for c, v in sorted(spellings.items()) if digits in c]
    return list(dict.fromkeys(name_of(v) for v in found))[:n]


def resolve_choice(word, snap: dict) -> str:
    """The entity a name or quoted label means: ``vit``, ``"8-bit Adam"``, ``lgbm``."""
    key = slug(word.text)
    names = snap["rule_index"]["choices"]
    if key in names:
        return names[key]
    suggestions = suggest(key, names, lambda iri: snap["nodes"][iri]["id"] if iri in snap["nodes"] else iri)
    raise VocabularyError.at(word.pos, f"unknown choice '{word.text}'",
                             expected=["an architecture, optimizer, approach, technique or fix of the KB"],
                             suggestions=suggestions,
                             notes=lookalikes(key, [(s, [s]) for s in suggestions], "choice"))


def dimension_names(snap: dict) -> dict[str, str]:
    """Every accepted spelling of a dimension → its canonical name (read, never changed: made
    once per snapshot, :mod:`recipekg.knowledge.derived`)."""
    return once(snap, "dimension names", _dimension_names)


def _dimension_names(snap: dict) -> dict[str, str]:
    names = {}
    for name, dim in snap["dimensions"].items():
        for alias in dim["aliases"]:
            names[alias] = name
    for name in snap["dimensions"]:
        names[name] = name
    return names


def resolve_dimension(word: Name, snap: dict) -> dict:
    names = dimension_names(snap)
    if word.text in names:
        return snap["dimensions"][names[word.text]]
    by_dimension = {}  # one spelling per dimension: the closest one typed
    for spelling in closest(word.text, names, n=6) + sorted(names):
        by_dimension.setdefault(names[spelling], spelling)
    suggestions = suggest(word.text, {s: s for s in by_dimension.values()}, str)
    raise VocabularyError.at(word.pos, f"unknown dimension '{word.text}'",
                             expected=["a dimension such as data, rows, params, gpus, hardware"],
                             suggestions=suggestions,
                             notes=lookalikes(word.text, [(s, [s]) for s in suggestions], "dimension"))


def resolve_value(value, dim: dict, snap: dict) -> "str | float":
    """One value of a constraint on ``dim``: an IRI for categorical, else a number."""
    kind = dim["kind"]
    if kind == "categorical":
        if not isinstance(value, (Name, String)):
            raise RangeError.at(value.pos, f"'{dim['name']}' takes a name, not {value.text!r}",
                                expected=[_examples(dim, snap)], suggestions=_suggest(slug(value.text), dim, snap))
        key = slug(value.text)
        if key in dim["values"]:
            return dim["values"][key]
        suggestions = _suggest(key, dim, snap)
        raise VocabularyError.at(value.pos, f"unknown {dim['name']} '{value.text}'",
                                 expected=[_examples(dim, snap)], suggestions=suggestions,
                                 notes=lookalikes(key, _spellings(suggestions, dim, snap), dim["name"], snap))
    if isinstance(value, Quantity):
        accepts = _accepts(dim)
        if value.unit_kind not in accepts:
            raise RangeError.at(value.pos, f"'{dim['name']}' is {_hint(dim)}, not "
                                           f"{_KIND_WORDS.get(value.unit_kind, value.unit_kind)} ({value.text})",
                                expected=[_hint(dim)])
        number = value.value / accepts[value.unit_kind]
    elif isinstance(value, Number):
        if kind in ("bytes", "duration"):
            digits = value.text.rstrip("kKmMbBGtT")
            unit = {"bytes": "GB", "duration": "min" if value.text.endswith("m") else "h"}[kind]
            raise RangeError.at(value.pos, f"'{dim['name']}' needs a unit: {_hint(dim)}",
                                expected=[_hint(dim)], suggestions=[f"{digits}{unit}"])
        number = value.value
    else:
        raise RangeError.at(value.pos, f"'{dim['name']}' is {_hint(dim)}, not '{value.text}'",
                                 expected=[_hint(dim)])
    low, high = dim.get("min"), dim.get("max")
    if not math.isfinite(number) or (low is not None and number < low) or (high is not None and number > high):
        bounds = f"at least {low:g}" if high is None else f"between {low:g} and {high:g}"
        raise RangeError.at(value.pos, f"'{dim['name']}' must be {bounds}, not {value.text}")
    return number


def _suggest(key: str, dim: dict, snap: dict) -> list[str]:
    """Closest values by any spelling (or holding what was typed: ``4090`` -> ``rtx-4090``),
    each named once by its id."""
    return suggest(key, dim["values"], lambda iri: snap["nodes"][iri]["id"])


def _spellings(ids: list[str], dim: dict, snap: dict) -> list[tuple[str, list[str]]]:
    """Each suggested value id with every spelling of it the dimension accepts."""
    by_id: dict[str, list[str]] = {i: [] for i in ids}
    for name, iri in dim["values"].items():
        node_id = snap["nodes"][iri]["id"]
        if node_id in by_id:
            by_id[node_id].append(name)
    return list(by_id.items())


def lookalikes(typed: str, suggestions: list, what: str, snap: dict | None = None) -> list[str]:
    """A note for each suggestion that only looks like ``typed``: no spelling of it is a
    slip of the keyboard away (:func:`recipekg.names.is_misspelling`), so it is offered as a
    different thing, never as a correction. ``suggestions`` are (name, spellings) pairs."""
    notes = []
    for name, spellings in suggestions:
        if any(is_misspelling(typed, s) for s in spellings):
            continue
        notes.append(f"'{clipped(name)}' is a different {what}{clipped(_meaning(name, what, snap), 200)}, not a spelling of "
                     f"'{typed}': check that it is what you mean")
    return notes


def _meaning(name: str, dim_name: str, snap: dict | None) -> str:
    """`` (label: definition)`` of a dimension's value, when the snapshot has them."""
    if snap is None:
        return ""
    iri = snap["dimensions"][dim_name]["values"].get(name)
    node = snap["nodes"].get(iri) if iri else None
    if not node:
        return ""
    text = node.get("definition") or ""
    return f" ({node['label']}: {text})" if text else f" ({node['label']})"


def _examples(dim: dict, snap: dict) -> str:
    ids = sorted({snap["nodes"][v]["id"] for v in dim["values"].values()})
    more = f" ... (all {len(ids)}: recipekg vocab {dim['name']})" if len(ids) > 8 else ""
    return f"{dim['name']} is one of {', '.join(ids[:8])}{more}"


def resolve_constraints(constraints: tuple[Constraint, ...], snap: dict) -> dict[str, Facts]:
    """Merge the constraints into one :class:`Facts` per canonical dimension.

    A run of numeric ``!=`` is applied in one pass when the next constraint on its dimension
    (or the end) comes, so thousands of them cost a sort, not a quadratic walk."""
    facts: dict[str, Facts] = {}
    pending: dict[str, list[tuple[float, Constraint]]] = {}
    for c in constraints:
        dim = resolve_dimension(c.dimension, snap)
        values = [resolve_value(v, dim, snap) for v in c.values]
        if c.op in ("=", "in") and dim["name"] in WHOLE_NUMBERS:
            _whole(c, dim, values)
        f = facts.setdefault(dim["name"], Facts(dim["name"], dim["kind"]))
        f.constraints.append(_describe(c, dim, values, snap))
        if dim["kind"] == "categorical":
            _merge_categorical(f, c, values)
        elif c.op == "!=":
            pending.setdefault(f.dimension, []).append((values[0], c))
        else:
            _exclude(f, pending.pop(f.dimension, []))
            _merge_numeric(f, c, values)
    for name, points in pending.items():
        _exclude(facts[name], points)
    return facts


def _whole(c: Constraint, dim: dict, values: list) -> None:
    """RangeError at the value when a count of whole things (:data:`recipekg.limits.WHOLE_NUMBERS`:
    GPUs, layers, a batch of sequences) is given a fraction or a number out of its range, in
    every statement as in plan (a bound such as ``gpus < 2.5`` is a bound, not a count).

    >>> s = parse("recommend approach where gpus = 2.5")[0]
    >>> resolve_constraints(s.constraints, snap)
    Traceback (most recent call last):
    recipekg.errors.RangeError: line 1, column 33: 'gpus' counts whole things: a whole number, not 2.5
    expected: gpus = 8
    """
    for value, v in zip(c.values, values):
        if problem := whole_number_problem(dim["name"], v, value.text):
            raise RangeError.at(value.pos, problem, expected=[dim.get("example") or f"{dim['name']} = 8"])


def _exclude(f: Facts, points: list[tuple[float, Constraint]]) -> None:
    """Apply ``!=`` constraints (value, constraint) to a numeric dimension; the error is at the
    one that removed the last value, as applying them one by one would report it."""
    if not points:
        return
    before = f.intervals if f.intervals is not None else [(-INF, False, INF, False)]
    f.intervals = exclude_points(before, sorted({v for v, _ in points}))
    if not f.intervals:
        last = next(c for v, c in reversed(points) if covers(before, v))
        raise RangeError.at(last.pos, f"no value of '{f.dimension}' satisfies all its constraints")


def _describe(c: Constraint, dim: dict, values: list, snap: dict) -> dict:
    shown = [snap["nodes"][v]["id"] if isinstance(v, str) else v for v in values]
    value = shown if c.op in ("between", "in") else shown[0]
    bits = [v for v in c.values if isinstance(v, Quantity) and v.unit_kind in ("bits", "bits/s")]
    more = {"given_as": ", ".join(v.text for v in c.values),
            "note": "; ".join(dict.fromkeys(bits_note(v) for v in bits))} if bits else {}
    if dim["kind"] == "categorical":
        more.update(_understood(c, dim, values, snap))
    if dim.get("origin"):   # a dimension an extension added (hostile round 7, 048: 'row' beside 'rows')
        more["origin"] = dim["origin"]
    return constraint_json(dim, c.op, value,
                           text=" ".join([c.dimension.text, c.op, ", ".join(v.text for v in c.values)]), **more)


def _understood(c: Constraint, dim: dict, values: list[str], snap: dict) -> dict:
    """What a categorical constraint was read as, when that is not plain: ``given_as`` the
    words typed when they are not the values' names (``low memory``, ``detection``; case
    aside), and ``no_advice`` for each value the reference gives no advice for, with the
    nearest advice it has (labelled, never used in its place)."""
    out: dict = {}
    ids = [snap["nodes"][v]["id"] for v in values]
    if [v.text for v in c.values] != ids:
        out["given_as"] = ", ".join(v.text for v in c.values)
    gaps = [no_advice(v, snap) for v in values if c.op in ("=", "in") and snap["nodes"][v].get("no_advice")]
    if gaps:
        out["no_advice"] = gaps
    origin = next((snap["nodes"][v]["origin"] for v in values if snap["nodes"][v].get("origin")), None)
    if origin:  # a value an extension added: the constraint says so (docs/security.md)
        out["origin"] = origin
    return out


def no_advice(iri: str, snap: dict) -> dict:
    """That the reference gives no advice for a value, and where its nearest advice is (the
    statement to ask it and the reference's section, by its path)."""
    node = snap["nodes"][iri]
    gap = node["no_advice"]
    section = snap["sections"].get(gap["nearest_section"] or "", {}).get("path")
    return {"value": node["id"], "label": node["label"], "message": gap["message"],
            "nearest_query": gap["nearest_query"], "nearest_section": section,
            **({"origin": node["origin"]} if node.get("origin") else {})}


def _merge_categorical(f: Facts, c: Constraint, values: list[str]) -> None:
    if c.op in ("=", "in"):
        new = set(values)
        f.values = new if f.values is None else f.values & new
        if not f.values:
            raise RangeError.at(c.pos, f"no {f.dimension} is both of these: the constraints on "
                                       f"'{f.dimension}' contradict each other")
    elif c.op == "!=":
        f.excluded |= set(values)
    else:
        raise RangeError.at(c.pos, f"'{c.op}' compares numbers; '{f.dimension}' takes names "
                                   f"(use =, != or in)", expected=["=", "!=", "in"])


def _merge_numeric(f: Facts, c: Constraint, values: list[float]) -> None:
    v = values[0]
    if c.op == "between":
        low, high = values
        if low > high:
            raise RangeError.at(c.pos, f"empty range: between {c.values[0].text} and {c.values[1].text}",
                                suggestions=[f"between {c.values[1].text} and {c.values[0].text}"])
        new = [(low, True, high, True)]
    elif c.op == "in":
        new = [(x, True, x, True) for x in sorted(set(values))]
    else:
        new = {"=": [(v, True, v, True)], "<": [(-INF, False, v, False)],
               "<=": [(-INF, False, v, True)], ">": [(v, False, INF, False)],
               ">=": [(v, True, INF, False)],
               "!=": [(-INF, False, v, False), (v, False, INF, False)]}[c.op]
    merged = new if f.intervals is None else intersect_all(f.intervals, new)
    if not merged:
        raise RangeError.at(c.pos, f"no value of '{f.dimension}' satisfies all its constraints")
    f.intervals = merged


