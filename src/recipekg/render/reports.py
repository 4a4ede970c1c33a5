"""Reports about the KB itself: ``stats``, ``papers`` and ``paper``, as text, JSON or Markdown.

    >>> print(render_papers([{"id": "kaplan2020", "claims": 10, "roles": {"states": 4, "supports": 6},
    ...                       "entities": 0, "year": 2020, "title": "Scaling Laws", "url": ""}], "markdown"))
    # 1 papers
    <BLANKLINE>
    | paper | claims | as | entities | year | title |
    |---|---|---|---|---|---|
    | `kaplan2020` | 10 | 4 states, 6 supports | 0 | 2020 | Scaling Laws |
"""

from __future__ import annotations

import json

from recipekg.render.sources import REFERENCE_WORDS, role_text
from recipekg.render.tables import markdown_safe, md_cell, md_text, table


def render_stats(s: dict, fmt: str) -> str:
    """``recipekg stats``: counts per class, kind and section of the reference."""
    if fmt == "json":
        return json.dumps(s, indent=2)
    md = fmt == "markdown"
    s = markdown_safe(s) if md else s
    out = ["# recipekg stats" if md else "recipekg stats",
           f"triples: {s['triples']}  rules: {s['rules']}  conditions: {s['conditions']}  "
           f"papers: {s['papers']}  dimensions: {s['dimensions']} (recipekg vocab lists them)", ""]
    out += _section("per class", ["class", "count"], list(s["classes"].items()), md)
    out += _section("per kind", ["kind", "count"], list(s["kinds"].items()), md)
    rows = [(r["section"] if md else "  " * r["section"].count(" > ") + r["section"].split(" > ")[-1],
             ", ".join(f"{v} {k}" for k, v in sorted(r["counts"].items())) or "NOTHING")
            for r in s["sections"]]
    out += _section("per section of the reference", ["section", "encoded"], rows, md)
    uncovered = s["uncovered_sections"]
    out.append(f"sections with nothing encoded: {len(uncovered)}" + "".join(f"\n  - {u}" for u in uncovered))
    revised = s.get("superseded", [])
    out.append(f"superseded by a newer source: {len(revised)}" + "".join(
        f"\n  - {r['kind']} {r['claim']} ({', '.join(r['sources'])}){_mark(r.get('origin'))} -> {r['superseded_by']} "
        f"({', '.join(r['superseded_by_sources'])}){_mark(r.get('superseded_by_origin'))}" for r in revised))
    return "\n".join(out)


def _section(title: str, header: list[str], rows: list[tuple], md: bool) -> list[str]:
    return ([f"## {title}", ""] if md else [title]) + table(header, rows, md=md) + [""]


def render_papers(rows: list[dict], fmt: str) -> str:
    """``recipekg papers``: every paper with the number of claims citing it."""
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    md = fmt == "markdown"
    rows = markdown_safe(rows) if md else rows
    cells = [(f"`{r['id']}`" if md else r["id"],
              f"{r['claims']} ({r['claims_from_extensions']} from extensions)" if r.get("claims_from_extensions")
              else r["claims"], _roles(r.get("roles") or {}), r["entities"],
              r["year"] or "", r["title"] + _mark(r.get("origin"))) for r in rows]
    lines = table(["paper", "claims", "as", "entities", "year", "title"], cells, md=md, right={1, 3, 4})
    if md:
        return "\n".join([f"# {len(rows)} papers", ""] + lines)
    return "\n".join([f"{len(rows)} papers; claims = rules, formulas, constants and facts citing each, whatever "
                      f"the role (as = how many cite it in each role: states, supports, method, reference); "
                      f"entities = entities introduced in it or described from it", ""] + lines)


def _roles(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {role}" for role, n in counts.items())


def render_paper(back: dict, reference: str, fmt: str) -> str:
    """``recipekg paper ID``: every claim citing the paper and the choices they lead to."""
    if fmt == "json":
        return json.dumps(back, indent=2, ensure_ascii=False)
    md = fmt == "markdown"
    if md:
        back, reference = markdown_safe(back), md_text(reference)
    p, n = back["paper"], len(back["claims"])
    out = [f"# {p['id']}: {p['title']}" if md else f"{p['id']} — {p['title']}", reference, "",
           f"{'## ' if md else ''}cited by {n} claim{'s' * (n != 1)}"]
    for cl in back["claims"]:
        head = f"{cl['kind']} {cl['id']}"
        role = role_text(cl) if cl.get("role") != "reference" else REFERENCE_WORDS
        if md:
            out.append(f"- **{head}** ({md_cell(cl['section'] or '')}) — *{md_cell(role)}*: "
                       f"{md_cell(cl['text'] or cl['label'])}")
            out += [f"  - caveat: {md_cell(cl['caveat'])}"] if cl.get("caveat") else []
        else:
            out += [f"  {head}  [{cl['section']}]  ({role})", f"      {cl['text'] or cl['label']}"]
            out += [f"      caveat: {cl['caveat']}"] if cl.get("caveat") else []
        for rel, names in _by_rel(cl["choices"]).items():
            out.append(f"{'  - ' if md else '      → '}{rel}: {', '.join(names)}")
    if back["entities"]:
        out += ["", f"{'## ' if md else ''}entities"]
        for e in back["entities"]:
            out.append(f"{'- ' if md else '  '}{e['label']} ({e['id']}): {', '.join(e['rels'])}")
    return "\n".join(out)


def _by_rel(choices: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ch in choices:
        for rel in ch["rels"]:
            out.setdefault(rel, []).append(f"{ch['label']} ({ch['id']})")
    return out


#: What each role means, as the audit report explains it.
ROLE_MEANINGS = {
    "states": "the source states this figure, threshold or finding (with where: a table, section or page)",
    "supports": "the source supports the mechanism or idea, not the exact figure or threshold",
    "method": "the source is the original paper of the method or model the claim names",
    "reference": "the claim is the reference's own judgement (the link to the reference document itself)",
}


_INTRO = ("Generated from the KB by `recipekg audit --format markdown > docs/provenance.md` "
          "(tests/knowledge/test_provenance.py checks that it is current); do not edit by hand. "
          "Every link from a claim (rule, formula, constant, fact, or a node with sources such as hardware) "
          "to a source says what the source does for the claim; the links are reviewed one by one in "
          "`kb/citations.tsv`, which `tools/gen_citations.py` turns into `kb/citations.ttl`.")

#: The CiTO characterization of each role (kb/citations.ttl, ontology/recipekg.ttl).
CITO_PROPERTIES = {"states": "cito:citesAsDataSource", "supports": "cito:obtainsSupportFrom",
                   "method": "cito:usesMethodIn", "reference": "cito:citesAsAuthority"}


def render_audit(r: dict, fmt: str) -> str:
    """``recipekg audit``: links by role, claims resting on the reference alone, gaps.

    >>> print(render_audit({"scope": "bundled KB", "claims": 1, "links": 1, "typed": 1, "untyped": 0,
    ...     "by_role": {"states": 1, "supports": 0, "method": 0, "reference": 0},
    ...     "by_kind": {"constant": {"states": 1, "supports": 0, "method": 0, "reference": 0}},
    ...     "reference_only": [], "no_source_states": [], "gaps": []}, "text").splitlines()[0])
    provenance of the bundled KB: 1 claims, 1 links (1 typed, 0 untyped)
    """
    if fmt == "json":
        return json.dumps(r, indent=2, ensure_ascii=False)
    md = fmt == "markdown"
    r = markdown_safe(r) if md else r
    head = f"provenance of the {r['scope']}: {r['claims']} claims, {r['links']} links ({r['typed']} typed, {r['untyped']} untyped)"
    out = [head, ""]
    if md:
        out = ["# Provenance of the knowledge base" if r["scope"] == "bundled KB" else
               f"# Provenance of {', '.join(r.get('files') or ['the extension'])}", "",
               *([_INTRO, ""] if r["scope"] == "bundled KB" else []), head[0].upper() + head[1:] + ".", ""]
    rows = [(role, r["by_role"][role], CITO_PROPERTIES[role], ROLE_MEANINGS[role]) for role in ROLE_MEANINGS]
    out += _section("Links by role" if md else "links by role", ["role", "links", "CiTO", "meaning"], rows, md)
    kinds = [(k, *(v[role] for role in ROLE_MEANINGS)) for k, v in r["by_kind"].items()]
    out += _section("Links by kind of claim" if md else "links by kind of claim", ["claim", *ROLE_MEANINGS], kinds, md)
    out += _claim_list(f"Claims resting on the reference's judgement alone ({len(r['reference_only'])})",
                       r["reference_only"], md)
    out += _claim_list(f"Claims no source states or introduces: the papers only support them "
                       f"({len(r['no_source_states'])})", r["no_source_states"], md)
    out += [f"## Gaps ({len(r['gaps'])})" if md else f"gaps ({len(r['gaps'])})", ""]
    out += [f"{'- ' if md else '  '}{_code(g['claim'], md)}: {g['message']}" for g in r["gaps"]] or ["none"]
    return "\n".join(out).rstrip() + "\n"


def _claim_list(title: str, items: list[dict], md: bool) -> list[str]:
    out = [f"## {title}" if md else title[0].lower() + title[1:], ""]
    for c in items:
        sources = f" [{', '.join(c['sources'])}]" if c.get("sources") else ""
        text = c.get("text") or c.get("label") or ""
        out.append(f"- {_code(c['claim'], md)}: {md_cell(text) if md else text}{sources}" if md
                   else f"  {c['claim']}{sources}\n      {text}")
    return out + ([] if items else ["none"]) + [""]


def _code(text: str, md: bool) -> str:
    return f"`{text}`" if md else text


def _mark(origin: dict | None) -> str:
    """`` [extension FILE, line N]`` after what an extension added (hostile round 9, 020), else ``""``."""
    return f" [extension {origin['file']}, line {origin['line']}]" if origin else ""
