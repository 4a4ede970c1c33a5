"""The compiled snapshot matches its typed definitions (recipekg/contracts/snapshot.py): the
top-level tables are the ones declared, and every entry of every table has exactly the fields
its TypedDict declares, of the declared types (checked with the JSON Schema generated from
them), for the bundled KB and for one with an extension."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from recipekg.contracts.schema import required_keys, schema_of
from recipekg.contracts.snapshot import TABLES, Snapshot
from support import EXTENSION


def plain(x):
    """A snapshot value as plain data (its lazily decoded maps and lists read whole)."""
    if hasattr(x, "items"):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) or type(x).__name__ == "LazyList":
        return [plain(v) for v in x]
    return x


def breaches(snap) -> list[str]:
    out = []
    keys = set(snap)
    declared = set(Snapshot.__annotations__)
    if not required_keys(Snapshot) <= keys <= declared:
        out.append(f"top level: missing {sorted(required_keys(Snapshot) - keys)}, undeclared {sorted(keys - declared)}")
    for table, entry_type in TABLES.items():
        defs: dict = {}
        ref = schema_of(entry_type, defs)
        validator = Draft202012Validator({**ref, "$defs": defs})
        for key, entry in snap[table].items():
            for error in validator.iter_errors(plain(entry)):
                out.append(f"{table}[{key}]/{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}")
    return out


def test_the_bundled_snapshot_matches_its_types(kb):
    assert breaches(kb.snap) == []


def test_an_extended_snapshot_matches_its_types(tmp_path):
    import recipekg

    ext = tmp_path / "ext.ttl"
    ext.write_text(EXTENSION.format(text="Extension rule."), encoding="utf-8")
    snap = recipekg.load([ext]).snap
    assert snap["validated"] and breaches(snap) == []


def test_a_changed_field_fails(kb):
    snap = dict(kb.snap)
    rules = dict(snap["rules"])
    iri = next(iter(rules))
    rules[iri] = {**plain(rules[iri]), "strength": 3, "surprise": True}
    snap["rules"] = rules
    found = breaches(snap)
    assert any("strength" in b for b in found) and any("surprise" in b for b in found)
