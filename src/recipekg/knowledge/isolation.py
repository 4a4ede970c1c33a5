"""The guarantee behind extensions: the bundled part of the merged snapshot is the bundled
snapshot, entry for entry, and nothing an extension adds answers to a bundled name.

:mod:`recipekg.knowledge.extensions` catches the usual ways to change the bundled KB early,
with a friendly message; this module is the guarantee, whatever route a triple takes
(subclassing, inference, a name the compiler reads some other way). It compares the two
compiled snapshots:

1. **Every bundled entry is identical** in every container of the snapshot — the list is the
   snapshot's own top-level dicts (:func:`containers`), so a container added to the compiler
   later is covered without anyone remembering. The only places a bundled entry may grow are
   :data:`GROWS`: indexes over the whole KB where a new node adds its own key or item (a new
   value's spellings in its dimension's vocabulary; a new rule that disputes a bundled one),
   and only with the extension's own nodes.
2. **No new entry answers to a bundled name**: its id or alias, a constant's symbol or
   quantity (for the same entity), a formula's output, a strength's rank — the fields of
   :data:`NAMED` in whatever container holds them — nor a word the query language resolves
   (kinds with their plurals, dimension names and aliases, choice names).
3. **A new strength stays inside the bundled scale** (:data:`SCALES`), and **no new claim
   speaks as the reference** (rests on the reference document or types itself as one).

    >>> a, b = "https://w3id.org/recipekg/id/a", "https://w3id.org/recipekg/id/b"
    >>> bundled = {"nodes": {a: {"id": "a", "aliases": ["a"], "label": "A"}}}
    >>> merged = {"nodes": {a: {"id": "a", "aliases": ["a"], "label": "A"},
    ...                     b: {"id": "b", "aliases": ["a", "b"], "label": "B"}}}
    >>> [d.message for d in differences(bundled, merged, owned={b})]
    ["kb:b takes the name 'a' of bundled kb:a (nodes): choose another name"]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import SimpleNamespace

from recipekg.knowledge.terms import shorten

#: Containers computed from the others (the rule index): checked through the names they
#: resolve, not entry by entry (a new rule shifts every position in them).
DERIVED = ("rule_index", "plan_index")
#: Where a bundled entry may grow, and only with the extension's own nodes: ``(container,
#: field)`` of a dict (new keys whose value is a new node) or a list (new items that are).
GROWS = {("dimensions", "*", "values"), ("rules", "*", "contradicts"),
         ("properties_by_choice", "*"), ("properties_by_dimension", "*"),  # which properties a choice has
         ("properties_by_kind", "*"),  # (and every choice of a kind)
         ("choice_properties", "*", "check", "values")}  # hardware that supports a precision (rkg:via)
#: The fields an entry is found by, and the name space each belongs to.
NAMED = {"id": "name", "aliases": "name", "symbol": "symbol", "output": "output", "computes": "output",
         "rank": "rank", "quantity": "quantity"}
#: Numeric fields whose new values must lie within the bundled ones (the scale of strengths).
SCALES = ("rank", "weight")
#: Containers an extension cannot add to, and why: every query is classified by all of their
#: entries at once, so a new one would change how a bundled query reads.
CLOSED = {"tiers": "a query's compute tier is derived from every tier at once (GPUs × time): "
                   "an extension cannot add a compute tier"}
#: What a new entry's fields must name (without the SHACL shapes nothing else would check it,
#: and answering would fail): ``(container, field) → the container holding the target``.
REFERENCES = {("rules", "strength"): "strengths", ("rules", "conditions"): "conditions",
              ("tiers", "conditions"): "conditions", ("formulas", "constants"): "constants"}


@dataclass(frozen=True)
class Difference:
    """One way the merged snapshot departs from the bundled one: what, and the nodes of the
    extension that cause it (``culprits``, for its file:line)."""

    message: str
    culprits: tuple = ()
    path: tuple = field(default=())


def containers(snap) -> list[str]:
    """The snapshot's containers: its top-level dicts, but the derived ones."""
    return [k for k, v in snap.items() if hasattr(v, "items") and k not in DERIVED]


def differences(bundled, merged, owned: set[str]):
    """Every :class:`Difference` of ``merged`` from ``bundled`` (``owned``: the nodes the
    extensions add), the changed bundled entries first."""
    for name in containers(bundled):
        b, m = bundled[name], merged.get(name) or {}
        for key, entry in b.items():
            if key not in m:
                yield Difference(f"bundled {_shown(key)} ({name}) is missing from the merged KB", (), (name, key))
                continue
            after = m[key]
            if isinstance(after, dict) and "origin" in after and not (isinstance(entry, dict) and "origin" in entry):
                node = after.get("iri") or key
                yield Difference(f"bundled {_shown(key)} ({name}) would be replaced by the extension's "
                                 f"{_shown(node)}: choose another id", (node, key), (name, key))
                continue
            where = _changed(entry, after, (name, key), owned)
            if where is not None:
                path, after = where
                yield Difference(f"bundled {_shown(key)} ({name}) would change: {_at(path[2:])}"
                                 f"{_brief(after)}: an extension adds knowledge, it cannot change the "
                                 f"bundled KB", tuple(_iris(after, owned)) + (key,), path)
    yield from _closed(bundled, merged)
    yield from _plan_only(bundled, merged)
    yield from _references(bundled, merged)
    yield from _names(bundled, merged)
    yield from _resolved(bundled, merged)
    yield from _scales(bundled, merged)
    yield from _as_reference(bundled, merged)
    yield from _magnitudes(bundled, merged)


def _changed(b, m, path: tuple, owned: set[str]):
    """None when ``m`` is ``b`` (or ``b`` grown where :data:`GROWS` allows, with owned nodes),
    else ``(path, value)`` of the first place they differ."""
    grows = any(len(path) == len(g) and all(x == "*" or x == y for x, y in zip(g, path)) for g in GROWS)
    if isinstance(b, dict) and isinstance(m, dict):
        extra = [k for k in m if k not in b]
        if extra and not (grows and all(isinstance(m[k], str) and m[k] in owned for k in extra)):
            return path + (extra[0],), m[extra[0]]
        for k in b:
            if k not in m:
                return path + (k,), None
            found = _changed(b[k], m[k], path + (k,), owned)
            if found is not None:
                return found
        return None
    if isinstance(b, list) and isinstance(m, list):
        kept = [x for x in m if not (grows and isinstance(x, str) and x in owned and x not in b)]
        if kept == b:
            return None
        i = next((i for i, (x, y) in enumerate(zip(kept, b)) if x != y), min(len(kept), len(b)))
        return path + (i,), kept[i] if i < len(kept) else None
    return None if b == m and type(b) is type(m) else (path, m)


def _closed(bundled, merged):
    for name, why in CLOSED.items():
        for key in (merged.get(name) or {}):
            if key not in (bundled.get(name) or {}):
                yield Difference(f"{_shown(key)}: {why}", (key,), (name, key))


def _plan_only(bundled, merged):
    """A new value of a bundled plan-only dimension whose values no other dimension shares
    (``recompute = partial``, ``attention = ring``): plan reads each of them through formulas of
    its own (the activations of each kernel and recomputation), so it would have none for it."""
    dims_b, dims_m = bundled.get("dimensions") or {}, merged.get("dimensions") or {}
    # shared in the bundled KB: an extension's own dimension on the class does not disarm the guard (hostile 8 D)
    shared = {d.get("value_class") for d in dims_b.values() if not d.get("plan_only")}
    for name, d in dims_m.items():
        if not d.get("plan_only") or d.get("value_class") in shared or name not in dims_b:
            continue
        old = set((dims_b[name].get("values") or {}).values())
        for iri in dict.fromkeys(v for v in (d.get("values") or {}).values() if v not in old):
            yield Difference(f"{_shown(iri)}: plan reads each value of {name} through formulas of its own, so it "
                             f"would have none for a new one: an extension cannot add a value to {name}",
                             (iri,), ("dimensions", name, "values"))


def _references(bundled, merged):
    for (name, f), target in REFERENCES.items():
        for key, entry in (merged.get(name) or {}).items():
            if key in (bundled.get(name) or {}) or not isinstance(entry, dict):
                continue
            value = entry.get(f)
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str) and v not in (merged.get(target) or {}):
                    yield Difference(f"{_shown(key)} names {_shown(v)} as its {f}, which is not one of the "
                                     f"KB's {target}", (key,), (name, key))


def _names(bundled, merged):
    """New entries answering to a bundled entry's name, per container and name space."""
    for name in containers(bundled):
        b, m = bundled[name], merged.get(name) or {}
        taken, scoped = _taken(b)
        for key, entry in m.items():
            if key in b or not isinstance(entry, dict):
                continue
            for space, value in _named(entry):
                other = taken.get((space, value))
                if space == "quantity":
                    other = _scoped_owner(scoped, value, entry.get("applies_to") or [])
                if other is not None:
                    what = {"name": "the name", "symbol": "the symbol", "output": "the output",
                            "rank": "the rank", "quantity": "the quantity"}[space]
                    yield Difference(f"{_shown(key)} takes {what} {value!r} of bundled {_shown(other)} "
                                     f"({name}): choose another name", (key,), (name, key))
                    break


def _magnitudes(bundled, merged):
    """A new constant of a quantity every bundled constant of which is positive (a width, a size:
    ``weight-bits``) is positive too: -4 bits a weight gave "-185 GB ... fits" (hostile
    extensions, round 6). (A figure for a bundled entity is the extension's, said in its voice.)"""
    b, m = bundled.get("constants") or {}, merged.get("constants") or {}
    positive = {q for q in {e.get("quantity") for e in b.values() if isinstance(e, dict)} if q is not None and all(
        isinstance(e.get(f), (int, float)) and e[f] > 0 for e in b.values() if isinstance(e, dict) and e.get("quantity") == q
        for f in ("value", "low", "high") if e.get(f) is not None)}
    for key, entry in m.items():
        if key in b or not isinstance(entry, dict) or entry.get("quantity") not in positive:
            continue
        bad = next((entry[f] for f in ("value", "low", "high") if isinstance(entry.get(f), (int, float)) and entry[f] <= 0), None)
        if bad is not None:
            yield Difference(f"{_shown(key)} is {bad:g}: every {entry['quantity']} of the KB is a positive magnitude",
                             (key,), ("constants", key))


def _named(entry: dict):
    for f, space in NAMED.items():
        value = entry.get(f)
        for v in value if isinstance(value, list) else [value]:
            if v is not None and not isinstance(v, (dict, list)):
                yield space, v


def _taken(entries) -> tuple[dict, dict]:
    """``(space, name) → key`` of the bundled entries, and quantity → ``{entity or "*": key}``
    (a constant is looked up by its quantity for an entity, or for none)."""
    taken: dict = {}
    scoped: dict = {}
    for key, entry in entries.items():
        if isinstance(entry, dict):
            for space, value in _named(entry):
                if space == "quantity":
                    for entity in entry.get("applies_to") or ["*"]:
                        scoped.setdefault(value, {}).setdefault(entity, key)
                else:
                    taken.setdefault((space, value), key)
    return taken, scoped


def _scoped_owner(scoped: dict, quantity, entities: list):
    """The bundled constant a new one of ``quantity`` for ``entities`` would stand in for."""
    owners = scoped.get(quantity)
    if not owners:
        return None
    if not entities or "*" in owners:
        return next(iter(owners.values()))
    return next((owners[e] for e in entities if e in owners), None)


def _resolved(bundled, merged):
    """Words the query language resolves: each that the bundled KB understands must mean the
    same in the merged one (kinds and their plurals, dimension names, choice names)."""
    from recipekg.errors import VocabularyError
    from recipekg.reason.resolve import dimension_names, resolve_kind

    def kind_of(snap, word):
        try:
            return resolve_kind(SimpleNamespace(text=word, pos=SimpleNamespace(line=1, column=1, length=1)), snap)
        except VocabularyError:
            return None

    if not all(k in snap for snap in (bundled, merged) for k in ("kinds", "dimensions", "rule_index")):
        return  # not a whole snapshot (a doctest's)
    words = {w for k in bundled["kinds"] for w in (k, k + "s", k + "es")} | set(merged["kinds"])
    for word in sorted(words):
        before, after = kind_of(bundled, word), kind_of(merged, word)
        if before is not None and before != after:
            yield Difference(f"the kind name {word!r} would mean kind {after!r}, not bundled {before!r}: "
                             f"choose another kind name", (merged["kinds"].get(after),))
    for what, before, after in (("dimension", dimension_names(bundled), dimension_names(merged)),
                                ("choice", bundled["rule_index"]["choices"], merged["rule_index"]["choices"])):
        for word, target in before.items():
            if after.get(word) != target:
                culprit = after.get(word)
                if what == "dimension" and culprit in merged["dimensions"]:
                    culprit = merged["dimensions"][culprit]["iri"]
                yield Difference(f"{_shown(culprit)} takes the {what} name {word!r} of bundled "
                                 f"{_shown(target)}: choose another name", (culprit,))


def _scales(bundled, merged):
    """New entries of a container whose entries carry a scale (strengths: rank, weight) stay
    strictly inside the bundled range: an extension cannot outrank the strongest advice."""
    for name in containers(bundled):
        b, m = bundled[name], merged.get(name) or {}
        for f in SCALES:
            values = [e[f] for e in b.values() if isinstance(e, dict) and isinstance(e.get(f), (int, float))]
            if not values:
                continue
            low, high = min(values), max(values)
            for key, entry in m.items():
                if key in b or not isinstance(entry, dict):
                    continue
                v = entry.get(f)
                if not isinstance(v, (int, float)) or not (math.isfinite(v) and low < v < high):
                    if v is None:
                        yield Difference(f"{_shown(key)} has no {f}: every one of the {name} has one",
                                         (key,), (name, key))
                        continue
                    yield Difference(f"{_shown(key)} has {f} {v!r}, outside the bundled {name} "
                                     f"(from {low:g} to {high:g}, exclusive): an extension's {f} stays "
                                     f"within the bundled scale", (key,), (name, key))


def _as_reference(bundled, merged):
    """No new claim rests on the reference document, has the reference's role, or is one."""
    references = {pid for pid, p in (bundled.get("papers") or {}).items() if "Reference" in (p.get("types") or ())}
    for name in containers(merged):
        for key, entry in (merged.get(name) or {}).items():
            if key in bundled.get(name, {}) or not isinstance(entry, dict) or "origin" not in entry:
                continue
            if name == "papers" and "Reference" in (entry.get("types") or ()):
                yield Difference(f"{_shown(entry.get('iri') or key)} is typed rkg:Reference, the reference "
                                 f"document: an extension's sources are papers (rkg:Paper)", (entry.get("iri"),))
                continue
            cited = [pid for pid in entry.get("sources") or [] if pid in references]
            roles = [pid for pid, c in (entry.get("citations") or {}).items()
                     if isinstance(c, dict) and c.get("role") == "reference"]
            if cited or roles:
                yield Difference(f"{_shown(key)} rests on {(cited or roles)[0]}, the reference itself: "
                                 f"an extension cannot speak as the reference; cite the paper the claim "
                                 f"comes from", (key,), (name, key))


def _iris(value, owned: set[str]):
    """The extension's nodes named anywhere in ``value``."""
    if isinstance(value, str):
        if value in owned:
            yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _iris(k, owned)
            yield from _iris(v, owned)
    elif isinstance(value, list):
        for v in value:
            yield from _iris(v, owned)


def _shown(iri) -> str:
    if isinstance(iri, str) and iri.startswith("https://w3id.org/recipekg/"):
        return shorten(iri)
    return f"<{iri}>" if isinstance(iri, str) and ":" in iri else repr(iri)


def _at(path: tuple) -> str:
    return "".join(f"[{p!r}]" if not isinstance(p, str) or not p.isidentifier() else f".{p}"
                   for p in path).lstrip(".") + " " if path else ""


def _brief(value) -> str:
    text = _shown(value) if isinstance(value, str) else repr(value)
    return f"becomes {text[:120] + '...' if len(text) > 120 else text}"


def check(per_file: list, bundled_paths: set[str]) -> list[tuple[str, int, str]]:
    """``(file, line, message)`` for every difference the extensions among ``per_file``
    (``(path, triples)`` pairs; the others are the bundled files, ``bundled_paths`` absolute)
    make, each at the extension's own line: the node that causes it, else the first triple of
    the extension (in file order) with which the difference appears."""
    import os

    from recipekg.knowledge.compiler import compile_read
    from recipekg.knowledge.origin import owned_origins

    inside = [(p, ts) for p, ts in per_file if os.path.abspath(p) in bundled_paths]
    outside = [(p, ts) for p, ts in per_file if os.path.abspath(p) not in bundled_paths]
    if not outside:
        return []
    bundled, merged = compile_read(inside), compile_read(per_file)
    origins = owned_origins(per_file, bundled_paths)
    found = []
    for d in differences(bundled, merged, set(origins)):
        file, line = _place(d, origins, outside) or _first_triple(d, inside, outside, bundled) \
            or (str(outside[0][0]), 1)
        found.append((file, line, d.message))
    return list(dict.fromkeys(found))


def _place(d: Difference, origins: dict, outside: list):
    """The extension's line of the first culprit it describes, or of a triple naming one."""
    import os

    for c in d.culprits:
        if c in origins:
            return origins[c]["file"], origins[c]["line"]
    for path, triples in outside:
        for t in triples:
            if t.s in d.culprits or t.o in d.culprits:
                return os.path.normpath(str(path)), triple_line(path, t)
    return None


def _first_triple(d: Difference, inside: list, outside: list, bundled):
    """Bisect the extension's triples, in file order, for the first one whose addition makes
    ``d`` (the same path, or the same message) appear."""
    import os

    from recipekg.knowledge.compiler import compile_read

    order = [(path, t) for path, triples in outside for t in triples]

    def appears(k: int) -> bool:
        parts: dict = {}
        for path, t in order[:k]:
            parts.setdefault(path, []).append(t)
        merged = compile_read(inside + list(parts.items()))
        owned = {t.s for _, t in order[:k]} - {t.s for _, ts in inside for t in ts}
        return any((x.path == d.path and d.path) or x.message == d.message
                   for x in differences(bundled, merged, owned))

    low, high = 0, len(order)  # appears(high); find the least such k
    if not order or not appears(high):
        return None
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if appears(mid) else (mid, high)
    path, t = order[high - 1]
    return os.path.normpath(str(path)), triple_line(path, t)


def triple_line(path, t) -> int:
    """The line of triple ``t`` in ``path``: the first line naming its predicate in the block
    of its subject (or the subject's line)."""
    from pathlib import Path

    from recipekg.knowledge.rdfio import file_lines, locate_in
    from recipekg.knowledge.terms import RDF, local_name

    start = locate_in(path, {t.s}).get(t.s)
    if start is None:
        return 1
    lines = file_lines(Path(path))
    word = " a " if t.p == RDF.type else local_name(t.p)
    for number in range(start, min(len(lines), start + 200) + 1):
        text = lines[number - 1]
        if word in f" {text} " and (number == start or not text[:1].strip() or word == " a "):
            return number
        if number > start and text[:1].strip() and not text.startswith("#"):
            break  # the next subject's block
    return start
