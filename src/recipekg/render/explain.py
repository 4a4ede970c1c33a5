"""An ``explain`` answer as text or Markdown.

    >>> a, = kb.query("explain vit where data = images and samples = 3000")
    >>> render_explain(a, md=False).splitlines()[0]  # doctest: +NORMALIZE_WHITESPACE
    'explain ViT (vit) — rank 3 among architecture choices, advised against here (the advice that applies weighs
     against it)'
"""

from __future__ import annotations

from recipekg.render.constraints import constraint_line, no_advice_lines
from recipekg.render.situation import (compute_check_line, excluded_lines, memory_line, missed_text, property_text, shortfall_line,
                                      taken_text, unused_lines, waiting_text)
from recipekg.render.sources import caveat_line, origin_text, sources_short, sources_text


def _rank_text(a: dict) -> str:
    """Where the choice ranks: among its kind's choices, or its recipe section's."""
    among = (f"{a['kind']} choices in its section, {a['section']} (the parts of one run are ranked by section)"
             if a.get("section") else f"{a['kind']} choices")
    ahead = a.get("ahead_by_extensions") or ()
    by = ("; above it by extensions: " + ", ".join(f"{e['id']} [extension {e['origin']['file']}, line "
                                                  f"{e['origin']['line']}]" for e in ahead)) if ahead else ""
    against = ", advised against here (the advice that applies weighs against it)" if (a.get("score") or 0) < 0 else ""
    return (f"rank {a['rank']} among {among}{against}" if a["rank"] else f"not ranked among {among}") + by


def render_explain(a: dict, md: bool, detail: bool = True) -> str:
    """An ``explain`` answer: the choice, every rule for and against it with each condition's
    status, and what would rank it first. Text without ``detail`` lists the rules that apply,
    one line each with their sources' ids, and counts the others."""
    c = a["choice"]
    rank = _rank_text(a)
    member = a.get("member_of")
    rank += f", in the entry of its family {member['label']} ({member['id']})" if member else ""
    tied = a.get("tied_with") or []
    rank += (", tied with " + ", ".join(f"{t['label']} ({t['id']})" for t in tied)
             + " (the same score from advice of the same weight: its place among them is the ids' order only)"
             if tied else "")
    own = f" [{origin_text(c)}]" if c.get("origin") else ""
    head = f"explain {c['label']} ({c['id']}){own} — {rank}"
    out = [f"## {head}" if md else head, f"constraints: {constraint_line(a['constraints'])}",
           *no_advice_lines(a["constraints"]), *unused_lines(a.get("unused"), md)]
    if c.get("definition"):
        out.append(f"what it is: {c['definition']}")
    if c["papers"]:
        out.append("introduced in: " + "; ".join(f"{p['id']} — {p['title']}" for p in c["papers"]))
    out += excluded_lines([a["excluded"]] if a.get("excluded") else [], md)
    out += [f"{'- ' if md else ''}{y['text']}" for y in a.get("yours", ())]
    if a.get("memory_saving"):
        out.append(f"{'- ' if md else ''}{memory_line(a['memory_saving'])}")
    out += [f"{'- ' if md else ''}{line}" for line in shortfall_line(a) + compute_check_line(a)]
    for p in a.get("properties", ()):
        via = f" (from {p['via']['label']})" if p.get("via") else ""
        out.append(f"{'- ' if md else ''}property{via}: {property_text(p)} — {p['verdict']} [{sources_short(p['sources'])}]")
    if a.get("against"):
        out += ["", "against it:"] + [f"{'- ' if md else '  '}{x['text']}" + (f" (a rule about {x['via']['label']})"
                                                                                 if x.get("via") else "")
                                      for x in a["against"]]
    out.append("")
    rules = a["rules"] + a.get("family_rules", [])
    if not (md or detail):
        out += brief_rules(rules)
        rules = []
    for x in rules:
        verdict = ("applies" if x["fires"] else "does not apply") + f", {x['match'] if 'near' not in x else 'near'}"
        side = "FOR" if x["side"] == "for" else "AGAINST"
        about = f" (about {x['via']['label']})" if x.get("via") else ""
        out.append(f"{'- ' if md else ''}{side}{about} [{x['strength']}] {x['text']}  ({verdict})"
                   f"{taken_text(x.get('taken'))}")
        for cond in x["conditions"]:
            out.append(f"    {cond['status']:>9}: {cond['condition']}")
        where = f"from: {origin_text(x)}, not the reference" if x.get("origin") else f"section: {x['section']}"
        out.append(f"    {where}; sources: {sources_text(x['sources'])}")
        out += caveat_line(x, "    ")
    if a.get("group") == "would apply":
        out.append(f"\nIt is among the choices that would also apply: every rule for or against it waits for "
                   f"a condition you did not give ({', '.join(a['waits_for'])}), so it is ranked after the "
                   f"choices your constraints decide.")
    elif a["rank"] is None and a.get("waits_for") and not a.get("excluded"):
        out.append(f"\nIt is not ranked: no rule speaks for it here, and the rules against it wait for a "
                   f"condition you did not give ({', '.join(a['waits_for'])}).")
    if a["rank"] == 1 and a.get("group") == "would apply" and not a["would_rank_first_if"]:
        waits = a["waits_for"]
        named = ", ".join(waits[:-1]) + " or " + waits[-1] if len(waits) > 1 else waits[0]
        out.append(f"\nIt is first of the ranking only because no choice is decided here: give {named} "
                   f"to see whether its advice applies.")
    elif a["rank"] == 1 and not a["would_rank_first_if"] and not a.get("no_change_because"):
        out.append("\nIt already ranks first for these constraints" + (", tied: the advice does not put it above "
                   + ", ".join(t["label"] for t in tied) if tied else "") + _misses(a))
        out += [f"    {q['text']}" for q in a.get("settled_by", ())]
    elif a["would_rank_first_if"]:
        out.append("\nIt would rank first with:")
        for w in a["would_rank_first_if"]:
            out.append(f"    {w['query']}")
    elif a.get("no_change_because"):
        out.append(f"\nNo change of the knobs ranks it first: {a['no_change_because']}.")
    elif tied:
        out.append("\nNo change of constraints found that ranks it first: the advice does not separate it from "
                   + ", ".join(t["label"] for t in tied) + ".")
        out += [f"    {q['text']}" for q in a.get("settled_by", ())]
    else:
        out.append("\nNo change of constraints found that ranks it first.")
    if above := a.get("behind"):
        out.append(f"It ranks just below {above['label']} ({above['id']}) at the same score: {above['by']}.")
    return "\n".join(out)


def brief_rules(rules: list[dict]) -> list[str]:
    """The rules that apply or are near their threshold (which rank the choice too), one line
    each, and how many do not (``--detail`` lists them)."""
    out = []
    for x in rules:
        if x["fires"] or x.get("near"):
            about = f" (about {x['via']['label']})" if x.get("via") else ""
            ids = ", ".join(dict.fromkeys(s["id"] for s in x["sources"]))
            near = ", near" if x.get("near") else ""
            out.append(f"{'FOR' if x['side'] == 'for' else 'AGAINST'}{about} [{x['strength']}{near}] {x['text']}"
                       f"{waiting_text(x)}{missed_text(x.get('near'))}{taken_text(x.get('taken'))} [{ids}]")
    idle = [x for x in rules if not x["fires"] and not x.get("near")]
    if idle:
        failed = list(dict.fromkeys(c["condition"] for x in idle for c in x["conditions"] if c["status"] == "failed"))
        what = (f": {', '.join(failed[:3])}{' and more' if len(failed) > 3 else ''} failed (--detail lists each rule "
                f"with its conditions)" if failed else ", each with the conditions that failed: --detail")
        out.append(f"… {len(idle)} more rule{'s' * (len(idle) != 1)} that do{'es' * (len(idle) == 1)} not apply here{what}")
    return out


def _misses(a: dict) -> str:
    """How the "already ranks first" line ends: where plan's arithmetic has the run miss the
    time budget (``compute_check``), it says so (the rules of thumb rank, plan times)."""
    c = a.get("compute_check")
    return ("; by plan's arithmetic, though, the run misses your time budget (the compute check above)."
            if c and c.get("meets_time_budget") is False else ".")
