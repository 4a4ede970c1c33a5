"""A ``recommend`` answer as text or Markdown: the pick and its runner-ups, the choices that
match the constraints, the ones that would also apply with more constraints, and what to
tell the reasoner next. Without ``detail`` (the command line's default) each result shows the
one rule that decides it most, with its sources' ids, and each group its first few results;
``detail`` lists every shown rule with its section, sources, roles and caveats.

    >>> a, = kb.query("recommend architecture where data = tabular and rows = 100k")
    >>> print(render_recommend(a, md=False).split("\\n\\n")[1])
    pick: Gradient-boosted trees (LightGBM, XGBoost) (gradient-boosted-trees)
    runner-ups: Neural tabular models (TabNet) (neural-tabular)
    compare with: FT-Transformer (ft-transformer)
"""

from __future__ import annotations

from recipekg.reason.added import advisers as of_results
from recipekg.render.constraints import constraint_line, format_constraint, no_advice_lines
from recipekg.render.situation import (entry_name, excluded_lines, missed_text, near_lines, note_lines, taken_text,
                                      shortfall_line, unused_lines, compute_check_line)
from recipekg.render.sources import caveat_line, origin_text, sources_short, sources_text

MATCHES_HEAD = "matches your constraints"
AGAINST_HEAD = "advised against for your constraints (the advice that applies weighs against each)"
NEAR_HEAD = ("near a threshold (the advice that ranks each misses your constraints narrowly: a value within a "
             "factor of 2 of its threshold)")
WOULD_APPLY_HEAD = "would also apply if you gave more (each waits for a condition you did not give)"
#: How many results of each group the short answer shows.
BRIEF_RESULTS = {"matches": 5, "near": 3, "against": 3, "would apply": 3}
#: The groups of results an answer shows, in order, with their headings: a match the advice
#: decides only by missing a threshold narrowly (``"match": "near"``) is shown apart (QA7 F10).
GROUPS = (("matches", MATCHES_HEAD), ("near", NEAR_HEAD), ("against", AGAINST_HEAD), ("would apply", WOULD_APPLY_HEAD))


def shown_group(r: dict) -> str:
    """The group of :data:`GROUPS` a result is shown under.

    >>> shown_group({"group": "matches", "score": 0.3, "match": "near"}), shown_group({"group": "matches", "score": -0.2})
    ('near', 'against')
    """
    if r["group"] != "matches":
        return r["group"]
    return "against" if r["score"] < 0 else "near" if r.get("match") == "near" else "matches"
#: The line that says where the rest of a short answer is.
MORE = "more: --detail (every rule with its section, sources and caveats), --format json (every field)"


def render_recommend(a: dict, md: bool, detail: bool = True) -> str:
    head = f"recommend {a['kind']} — {a['query']}"
    out = [f"## {head}" if md else head, f"constraints: {constraint_line(a['constraints'])}",
           *no_advice_lines(a["constraints"]), *scope_lines(a.get("out_of_scope"), md),
           *unused_lines(a.get("unused"), md), ""]
    situation = near_lines(a.get("near_boundary"), md) + excluded_lines(a.get("excluded"), md)
    if not a["results"]:
        none = ("No pick: every choice the advice reaches is ruled out by these constraints (below)." if a.get("excluded")
                else f"No {a['kind']} rule of the KB applies to these constraints.")
        return "\n".join(out + [none] + elsewhere_lines(a) + situation * bool(situation) + _ask(a, md))
    out += _decision(a, md)
    if situation:
        out += [""] + situation
    for group, title in GROUPS:
        results = [r for r in a["results"] if shown_group(r) == group]
        if results and not (md or detail):
            out += ["", title] + brief_results(results, BRIEF_RESULTS[group], group != "would apply")
        elif results:
            out += ["", f"### {title[0].upper() + title[1:]}" if md else title]
            out += _md_table(results) if md else [line for r in results for line in _result_text(r)]
    if a.get("more"):  # results past the default top, counted
        out += ["", ("*" + a["more"]["text"] + "*") if md else a["more"]["text"]]
    return "\n".join(out + _ask(a, md) + ([] if md or detail else ["", MORE]))


def _md_table(results: list[dict]) -> list[str]:
    """The results as a Markdown table (the table writer is imported for Markdown only)."""
    from recipekg.render.tables import table

    return table(["#", "choice", "score", "top reasons", "sources"], [_row(r) for r in results], md=True)


def brief_results(results: list[dict], limit: int, reasons: bool) -> list[str]:
    """The first ``limit`` results, one line each, with (``reasons``) the rule that decides
    each most and its sources' ids, and the strongest that weighs the other way where one
    applies (a full fine-tune for 3K examples that the memory advises against: why it scores
    0.30, not 0.90); then how many more there are."""
    out = []
    for r in results[:limit]:
        waits = f"  (waits for: {', '.join(r['waits_for'])})" if r.get("waits_for") else ""
        out.append(f"{r['rank']:>2}. {entry_name(r)} ({r['id']})  score {r['score']:.2f}{waits}")
        shown = _deciding(r)[:1] + _weighing(r)[:1] if reasons else []
        for x in shown:
            sign = "+" if x in r["because"] else "−"
            out.append(f"    {sign} [{x['strength']}] {x['text']}{missed_text(x.get('near'))}{taken_text(x.get('taken'))} "
                       f"[{', '.join(dict.fromkeys(s['id'] for s in x['sources']))}]")
        out += note_lines(r, "    ")  # what its properties say the constraints go past, and its memory saving
    if len(results) > limit:
        rest = results[limit:]
        out.append(f"    … and {len(rest)} more: " + ", ".join(r["id"] for r in rest[:8]) + (", ..." if len(rest) > 8 else ""))
    return out


def _name(a: dict, choice_id: str) -> str:
    label = next((entry_name(r) for r in a["results"] if r["id"] == choice_id), None)
    return f"{label} ({choice_id})" if label else choice_id


#: The lines naming the matches related to the pick (``decision.broader`` and ``.narrower``).
KIN_LINES = (("broader", "within: {}, the family the pick belongs to (it matches too)"),
             ("narrower", "kinds of it: {}, narrower choices that match too"),
             ("parts", "combining: {}, the parts of it that match too"),
             ("part_of", "part of: {}, a combination of it and others that matches too"))


def elsewhere_lines(a: dict) -> list[str]:
    """The other kinds whose advice decides for these constraints, when this answer has none."""
    return [f"the {e['kind']} advice for these constraints " +
            (f"is against {e['label']}, which you chose" if e["verdict"] == "against" else f"is for {e['label']}") +
            f": {e['query']}" for e in a.get("elsewhere", ())]


def scope_lines(scope: list[dict] | None, md: bool) -> list[str]:
    """A failure mode given whose entry is about other runs (``out_of_scope``), one line each."""
    out = []
    for s in scope or ():
        given = " and ".join(format_constraint(c) for c in s["because_of"])
        entry = (f"'{s['label']}' [{origin_text(s)}, not the KB's]" if s.get("origin") else
                 f"the reference's '{s['label']}'")
        out.append(("- " if md else "") + f"outside its entry: {s['dimension']} = {s['value']} is {entry}, an entry "
                   f"about runs with {s['condition']}; {given} is not one: its advice is for runs unlike yours")
    return out


def against_yours_lines(a: dict) -> list[str]:
    """A choice the user made that the advice for their case weighs against, with the strongest
    such reason (``decision.against_yours``)."""
    out = []
    for choice in (a.get("decision") or {}).get("against_yours", ()):
        r = next((x for x in a["results"] if x["id"] == choice), None)
        why = next((x for x in r["against"] if x["match"] == "full"), None) if r is not None else None
        text = (f" — {why['text']} [{', '.join(dict.fromkeys(s['id'] for s in why['sources']))}]" if why else
                f" — not among the results shown: explain {choice} for the advice against it")
        name = f"{r['label']} ({choice})" if r is not None else choice  # (the choice itself, not its family entry)
        out.append(f"against your choice: {name}{text}")
    return out


def yours_lines(a: dict) -> list[str]:
    """Where the answer ranks each choice of its kind the user gave (``decision.yours``): its
    entry, the family of it that ranks, or none."""
    return [y["text"] for y in (a.get("decision") or {}).get("yours", ())]


def alongside_text(a: dict, entry: dict) -> str:
    """One section's best match beside the pick: "parallelism — Five-way parallelism (...)"."""
    tied = ", tied with " + ", ".join(_name(a, i) for i in entry["tied_with"]) if entry.get("tied_with") else ""
    return f"{entry['section']} — {_name(a, entry['pick'])}{tied}"


def advisers(a: dict) -> str:
    """Who advises against every choice of an answer with no pick (:func:`recipekg.reason.added.advisers`)."""
    return of_results(a["results"])


def _decision(a: dict, md: bool) -> list[str]:
    d = a.get("decision") or {}
    if not d.get("pick"):
        if any(r["group"] == "matches" for r in a["results"]):
            out = [f"no pick: {advisers(a)} advises against every choice these constraints decide"]
        else:
            out = ["no pick: no rule decides with these constraints alone" + (" (see below)" if a.get("ask") else "")]
        return (out + against_yours_lines(a) + yours_lines(a) + shortfall_line(a) + compute_check_line(a)
                + elsewhere_lines(a))
    bold = "**" if md else ""
    out = [f"pick: {bold}{_name(a, d['pick'])}{bold}"]
    if d.get("tied_with"):
        out[0] += (", tied with " + ", ".join(_name(a, i) for i in d["tied_with"]) +
                   ": the advice speaks for each equally (the same score, strength and specificity; first here by id only)")
    if ahead := d.get("ahead_by"):
        out[0] += (", ahead of " + ", ".join(_name(a, i) for i in ahead["of"]) + " at the same score and strength: "
                   f"its own properties fit {', '.join(ahead['fits'])}, which no advice deciding for them reads")
    if d.get("procedure"):
        steps = d["procedure"]["steps"]
        out.append(f"then, in order ({d['procedure']['id']}): " + " → ".join(_name(a, i) for i in steps[1:]))
    others = [i for i in d["runner_ups"] if i not in d.get("tied_with", ())]  # (a tie is on the pick's line)
    if others:
        out.append("runner-ups: " + ", ".join(_name(a, i) for i in others))
    if d["compare_with"]:
        out.append("compare with: " + ", ".join(_name(a, i) for i in d["compare_with"]))
    for side, head in KIN_LINES:  # the pick's family and its kinds that match: no alternatives to it
        if d.get(side):
            out.append(head.format(", ".join(_name(a, i) for i in d[side])))
    if d.get("alongside"):  # the best of the other sections: other parts of the run, not alternatives
        out.append("alongside, for other parts of the run: " + "; ".join(alongside_text(a, e) for e in d["alongside"]))
    out += against_yours_lines(a)
    out += yours_lines(a)
    out += shortfall_line(a)
    out += compute_check_line(a)
    return [line + ("  " if md else "") for line in out]


def _ask(a: dict, md: bool) -> list[str]:
    if not a.get("ask"):
        return []
    return ["", "### To decide"] * md + [""] * (not md) + [f"{'- ' if md else '? '}{q['text']}"
                                                          + (f" [{origin_text(q)}]" if q.get("origin") else "")
                                                          for q in a["ask"]]


def _shown(r: dict, side: str) -> list[dict]:
    """The reasons a result lists first: for a choice the constraints decide, the rules that
    decide, a rule near its threshold among them (the others, waiting for a constraint, are
    in the JSON and in explain), a rule that holds before one near its threshold: the one that
    puts it among the matches (a small LSTM under 1K sequences, ahead of the 1K-100K band's)."""
    reasons = r[side]
    if r["group"] == "matches":
        reasons = sorted((x for x in reasons if x["match"] in ("full", "general", "near")), key=lambda x: x["match"] == "near")
    return reasons[:2]


def _deciding(r: dict) -> list[dict]:
    """The reasons a one-line result lists: those of the side its score leans to (a result the
    advice weighs against shows a rule against it first, not a rule for it near its threshold),
    else the other side's."""
    first, second = ("against", "because") if r["score"] < 0 else ("because", "against")
    return _shown(r, first) or _shown(r, second)


def _weighing(r: dict) -> list[dict]:
    """For a result the constraints decide, the reasons on the side its score does not lean to
    that apply (fully, or as general advice): what its score nets out."""
    if r["group"] != "matches":
        return []
    side = "because" if r["score"] < 0 else "against"
    return [x for x in _shown(r, side) if x["match"] in ("full", "general")]


def _row(r: dict) -> tuple:
    reasons = _deciding(r) + _weighing(r)[:1]  # and what its score nets out, as the text's brief lines
    why = "<br>".join(_reason_md(x, r) for x in reasons)
    if r.get("waits_for"):
        why += f"<br>*waits for: {', '.join(r['waits_for'])}*"
    if hidden := _hidden_origins(r, reasons):
        why += f"<br>*more rules{hidden}*"
    srcs = sources_short([s for x in reasons for s in x["sources"]], sep="<br>")
    notes = note_lines(r, "")
    if notes:
        why += "".join(f"<br>*{n}*" for n in notes)
    own = f" *{origin_text(r)}*" if r.get("origin") else ""
    return (r["rank"], f"{entry_name(r)} (`{r['id']}`){own}", f"{r['score']:.2f}", why, srcs)


def _result_text(r: dict) -> list[str]:
    waits = f"  (waits for: {', '.join(r['waits_for'])})" if r.get("waits_for") else ""
    own = f"  [{origin_text(r)}]" if r.get("origin") else ""
    out = [f"{r['rank']:>2}. {entry_name(r)} ({r['id']}){own}  score {r['score']:.2f}{waits}"]
    because, against = _shown(r, "because"), _shown(r, "against")
    for x in because:
        out += reason_text(x, "+")
    for x in against:
        out += reason_text(x, "−")
    out += note_lines(r, "    ")
    more = len(r["because"]) + len(r["against"]) - len(because) - len(against)
    if more > 0:
        out.append(f"      … {more} more rule{'s' * (more != 1)} (--format json or explain {r['id']})"
                   + _hidden_origins(r, because + against))
    return out


def _hidden_origins(r: dict, shown: list[dict]) -> str:
    """``, of which N from extension FILE, line L, ...``: the extension rules that count for a
    result but are not listed, so a score never changes without naming the extension."""
    hidden = [x for x in r["because"] + r["against"] if x.get("origin") and x not in shown]
    if not hidden:
        return ""
    places = list(dict.fromkeys(origin_text(x) for x in hidden))
    return f", {len(hidden)} of them from the " + "; ".join(places[:3]) + ("; ..." if len(places) > 3 else "")


def reason_text(x: dict, sign: str) -> list[str]:
    step = f"step {x['step']}: " if x.get("procedure") else ""
    via = f"(about {x['via']['label']}) " if x.get("via") else ""
    missed = missed_text(x.get("near")) + taken_text(x.get("taken"))
    lines = [f"    {sign} [{x['strength']}, {x['match']}] {via}{step}{x['text']}{missed}",
             f"      from: {origin_text(x)}, not the reference" if x.get("origin") else f"      section: {x['section']}",
             f"      sources: {sources_text(x['sources'])}", *caveat_line(x, "      ")]
    for d in x.get("disputed_by", []):  # an extension's rule never speaks as the reference
        who = (f"the {origin_text(d)} disagrees" if d.get("origin") else f"the reference disagrees ({d['section']})"
               if d.get("of_reference", True) else f"a source beyond the reference disagrees ({d['section']})")
        lines.append(f"      ! {who}: {d['text']}")
    return lines


def _reason_md(x: dict, r: dict) -> str:
    sign = "against: " if x in r["against"] else ""
    step = (f"(about {x['via']['label']}) " if x.get("via") else "") + (f"step {x['step']}: " if x.get("procedure") else "")
    disputed = "".join(f" ⚠ disputed by *{origin_text(d) or d['section']}*" for d in x.get("disputed_by", []))
    caveat = f"<br>*caveat: {x['caveat']}*" if x.get("caveat") else ""
    where = f"{origin_text(x)}, not the reference" if x.get("origin") else x["section"]
    taken = f" *{taken_text(x['taken']).strip()}*" if x.get("taken") else ""
    return f"{sign}**{x['strength']}**, {x['match']}: {step}{x['text']}{taken} (*{where}*){disputed}{caveat}"
