"""Where an extension's knowledge comes from, marked on every entry it adds to the snapshot.

An entry of the snapshot (a rule, a constant, a fact, a paper, a choice...) that an extension
adds carries ``"origin": {"file", "line"}``: the extension file and the line where its node is
first described. The answers copy it (docs/security.md, "Marked provenance"), so an answer
that changes because of added knowledge names the extension where it changed. An extension
never speaks as the reference: its claims are filed under a section of their own, named after
the extension (``extension FILE``), never under one of the reference's sections::

    >>> snap = {"rules": {"rule:a": {"label": "A", "section": "sec:x"}, "rule:b": {"label": "B", "section": "sec:x"}},
    ...         "sections": {"sec:x": {"path": "Tabular"}}}
    >>> mark(snap, {"rule:b": {"file": "team.ttl", "line": 3}})
    >>> snap["rules"]["rule:a"]["section"], snap["rules"]["rule:b"]["origin"]
    ('sec:x', {'file': 'team.ttl', 'line': 3})
    >>> snap["sections"][snap["rules"]["rule:b"]["section"]]["path"]
    'extension team.ttl'
"""

from __future__ import annotations

import os

#: The IRI scheme of the section each extension file's claims are filed under.
SECTION_SCHEME = "urn:recipekg:extension:"


def owned_origins(per_file: list, bundled: set[str]) -> dict[str, dict]:
    """Subject IRI → ``{"file", "line"}`` for every node an extension describes that no bundled
    file does (``per_file``: ``(path, triples)`` pairs; ``bundled``: absolute bundled paths)."""
    from recipekg.knowledge.rdfio import locate_in

    inside = {t.s for path, triples in per_file if os.path.abspath(path) in bundled for t in triples}
    out: dict[str, dict] = {}
    for path, triples in per_file:
        if os.path.abspath(path) in bundled:
            continue
        new = {t.s for t in triples if t.s not in inside and t.s not in out and not t.s.startswith("_:")}
        if new:
            shown = os.path.normpath(str(path))
            lines = locate_in(path, new)
            out.update({s: {"file": shown, "line": lines.get(s, 1)} for s in new})
    return out


def mark(snap: dict, origins: dict[str, dict]) -> None:
    """Mark, in place, every record of every container whose node an extension describes
    (a record: a dict entry with a ``label``, ``path`` or ``id``), and file the extension's
    claims under the extension's own section."""
    if not origins:
        return
    sections = snap.setdefault("sections", {})
    for name, container in list(snap.items()):
        if not isinstance(container, dict):
            continue
        for key, entry in container.items():
            if not isinstance(entry, dict) or not ({"label", "path", "id"} & entry.keys()):
                continue
            origin = origins.get(key) or origins.get(entry.get("iri"))
            if origin is None:
                continue
            entry["origin"] = origin
            if "section" in entry and name != "sections":
                entry["section"] = _own_section(sections, origin["file"])
    for key, entry in sections.items():  # an extension's own section is named as the extension's
        if "origin" in entry and not key.startswith(SECTION_SCHEME):
            entry["path"] = f"extension {entry['origin']['file']}: {entry.get('path') or ''}".rstrip(": ")


def _own_section(sections: dict, file: str) -> str:
    iri = SECTION_SCHEME + file
    sections.setdefault(iri, {"path": f"extension {file}", "order": None, "parent": None,
                              "origin": {"file": file, "line": 1}})
    return iri
