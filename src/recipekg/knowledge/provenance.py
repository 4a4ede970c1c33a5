"""The provenance report (``recipekg audit``): what each source does for each claim, counted
by role, the claims resting on the reference's judgement alone, and the gaps.

    >>> report = audit(snap)
    >>> sorted(report["by_role"])
    ['method', 'reference', 'states', 'supports']
    >>> report["gaps"]
    []

A claim is a rule, formula, constant or fact, or any other node with sources (hardware, a
failure mode, ...). For an extension the report covers the extension's own claims, and its
gaps include rules that cite only the reference. Gaps are what an author should fix: a link
without a typed citation (it reads as ``supports``, or ``reference`` for kb:reference), a
``states`` without ``where``, a claim without any source.
"""

from __future__ import annotations

from collections import Counter

from recipekg.knowledge.terms import shorten

ROLES = ("states", "supports", "method", "reference")
_CLAIMS = (("rule", "rules"), ("formula", "formulas"), ("constant", "constants"), ("fact", "facts"))


def claims(snap: dict):
    """``(kind, iri, claim)`` for every claim of the snapshot: rules, formulas, constants and
    facts, then the other nodes that carry sources (``hardware`` or ``entity``)."""
    for kind, key in _CLAIMS:
        for iri, c in sorted(snap[key].items()):
            yield kind, iri, c
    claimed = {iri for _, key in _CLAIMS for iri in snap[key]}
    for iri, node in sorted(snap["nodes"].items()):
        if node.get("sources") and iri not in claimed:
            kind = "hardware" if any(t.endswith("#Hardware") for t in node["types"]) else "entity"
            yield kind, iri, node


def audit(snap: dict, scope: set[str] | None = None, *, extension: bool = False) -> dict:
    """The report over the claims whose IRI is in ``scope`` (all claims when None);
    ``extension`` adds the rules that cite only the reference to the gaps."""
    by_role, by_kind, typed = Counter(), {}, Counter()
    reference_only, unstated, gaps = [], [], []
    n_claims = 0
    for kind, iri, c in claims(snap):
        if scope is not None and iri not in scope:
            continue
        n_claims += 1
        cites = c.get("citations") or {}
        roles = [cites.get(pid, {}).get("role", "supports") for pid in c["sources"]]
        by_role.update(roles)
        by_kind.setdefault(kind, Counter()).update(roles)
        typed.update("typed" if cites.get(pid, {}).get("typed") else "untyped" for pid in c["sources"])
        entry = {"kind": kind, "claim": shorten(iri), "label": c.get("label"), "text": c.get("text")}
        if not c["sources"]:
            gaps.append(dict(entry, gap="no-source", message="no prov:wasDerivedFrom: cite a paper or kb:reference"))
        elif set(roles) == {"reference"}:
            reference_only.append(entry)
            if extension and kind == "rule":
                gaps.append(dict(entry, gap="rule-reference-only",
                                 message="the rule cites only kb:reference: cite the paper behind it, if any"))
        elif not {"states", "method"} & set(roles):
            unstated.append(dict(entry, sources=[pid if role == "reference" else f"{pid} ({role})"
                                                 for pid, role in zip(c["sources"], roles)]))
        gaps += _link_gaps(entry, c, cites)
    return {"scope": "extension" if extension else "bundled KB" if scope is None else "selection",
            "claims": n_claims, "links": sum(by_role.values()),
            "by_role": {r: by_role.get(r, 0) for r in ROLES},
            "by_kind": {k: {r: v.get(r, 0) for r in ROLES} for k, v in by_kind.items()},
            "typed": typed.get("typed", 0), "untyped": typed.get("untyped", 0),
            "reference_only": reference_only, "no_source_states": unstated, "gaps": gaps}


def _link_gaps(entry: dict, c: dict, cites: dict) -> list[dict]:
    """The gaps of one claim's links: untyped ones, and ``states`` without ``where``."""
    out = []
    for pid in c["sources"]:
        cite = cites.get(pid) or {}
        if not cite.get("typed"):
            out.append(dict(entry, gap="untyped", source=pid,
                            message=f"the link to {pid} has no typed citation (shown as {cite.get('role', 'supports')})"))
        elif cite.get("role") == "states" and not cite.get("where"):
            out.append(dict(entry, gap="states-without-where", source=pid,
                            message=f"{pid} states the claim: say where (rkg:where: a table, section or page)"))
    return out


def audit_files(files=()) -> dict:
    """``recipekg audit [FILES]``'s report: the bundled KB's, or that of ``files``' own claims
    (read without validation, so an extension's gaps show even where validation would refuse
    it). A missing, irregular or oversized file is a :class:`~recipekg.errors.KBError`, as
    ``--kb`` checks it."""
    import os
    from pathlib import Path

    from recipekg.knowledge.loader import check_extension_file
    from recipekg.knowledge.rdfio import subject_lines

    for f in files:  # a regular, readable file within the size cap, as --kb checks
        check_extension_file(f)
    snap = _compiled([Path(f) for f in files])
    scope = {iri for f in files for iri in subject_lines(Path(f))} if files else None
    result = audit(snap, scope, extension=bool(files))
    if files:
        result["files"] = [os.path.normpath(f) for f in files]
    return result


def _compiled(files: list) -> dict:
    """The merged snapshot, unvalidated (the audit is for extensions still being written);
    a file that cannot even compile is refused with validate's first violation."""
    from recipekg.errors import KBError
    from recipekg.knowledge.loader import compile_files
    from recipekg.knowledge.resources import bundled_files
    from recipekg.knowledge.validate import validate

    paths = bundled_files() + files
    try:
        return compile_files(paths)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        found = validate(paths) or [None]
        first = found[0]
        if first is None:
            raise
        raise KBError(f"{first.message} (run `recipekg validate`)", file=first.file, line=first.line) from None
