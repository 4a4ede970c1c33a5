"""What an answer says about the whole situation, as text and Markdown lines: the constraints
no advice used, the choices a property rules out, the thresholds near the user's values, and
family entries named with their members.

    >>> unused_lines([{"dimension": "precision", "value": "bf16", "why": "no fix advice depends on precision"}], md=False)
    ['not used: precision = bf16 — no fix advice depends on precision']
    >>> entry_name({"id": "gradient-boosted-trees", "label": "Gradient-boosted trees",
    ...             "members": [{"id": "xgboost", "label": "XGBoost"}, {"id": "lightgbm", "label": "LightGBM"}]})
    'Gradient-boosted trees (XGBoost, LightGBM)'
"""

from __future__ import annotations

from recipekg.render.constraints import format_constraint
from recipekg.render.numbers import value
from recipekg.render.sources import origin_text, sources_short


def entry_name(r: dict) -> str:
    """A result's label, a family entry's with its members: "Gradient-boosted trees (XGBoost, LightGBM)"."""
    members = r.get("members") or []
    return r["label"] + (f" ({', '.join(m['label'] for m in members)})" if members else "")


def value_text(v, unit: str | None = None) -> str:
    """A constraint's value as an answer names it (a list joined, a number in its unit)."""
    if isinstance(v, list):
        return ", ".join(value_text(x, unit) for x in v)
    return value(v, unit) if isinstance(v, (int, float)) else str(v)


def taken_text(taken: dict | None) -> str:
    """`` (once taken: method = lora, so base-load = 108.3%; not a constraint you gave)`` for a
    rule against a choice that applies with the choice taken as its own method, else "".

    >>> taken_text({"dimension": "method", "value": "lora",
    ...             "derived": [{"dimension": "base-load", "op": "=", "value": 1.083, "unit": "fraction"}]})
    ' (once taken: method = lora, so base-load = 108.3%; not a constraint you gave)'
    """
    if not taken:
        return ""
    so = ", ".join(format_constraint(c) for c in taken.get("derived", ()))
    return f" (once taken: {taken['dimension']} = {taken['value']}{', so ' + so if so else ''}; not a constraint you gave)"


def waiting_text(rule: dict) -> str:
    """`` (waits for: task = classification or ner, not given)`` for a rule that applies on part
    of its conditions only, the others not given, else "": the one line of a brief ``explain``
    says the rule is not yet known to hold, as the detail's ``not given`` lines do.

    >>> waiting_text({"fires": True, "match": "partial", "conditions": [
    ...     {"status": "held", "condition": "data = text"},
    ...     {"status": "not given", "condition": "task = classification or ner"}]})
    ' (waits for: task = classification or ner, not given)'
    """
    if not rule.get("fires") or rule.get("match") != "partial":
        return ""
    waiting = [c["condition"] for c in rule.get("conditions", ()) if c.get("status") == "not given"]
    return f" (waits for: {'; '.join(waiting)}, not given)" if waiting else ""


def missed_text(near: dict | None) -> str:
    """`` (missed narrowly: time 2 weeks against 1 week)`` for a rule near its threshold, else "".

    >>> missed_text({"dimension": "time", "value": 336.0, "threshold": 168.0, "unit": "hours"})
    ' (missed narrowly: time 2 weeks against 1 week)'
    >>> missed_text({"dimension": "batch-size", "value": 32000.0, "threshold": 32000.0})
    ' (missed narrowly: batch-size 32k is the threshold, which the rule leaves out)'
    """
    if not near:
        return ""
    if near["value"] == near["threshold"]:  # an excluded end: batch-size > 32k, given 32k
        return f" (missed narrowly: {near['dimension']} {value(near['value'], near.get('unit'))} is the threshold, which the rule leaves out)"
    return (f" (missed narrowly: {near['dimension']} {value(near['value'], near.get('unit'))} against "
            f"{value(near['threshold'], near.get('unit'))})")


def unused_lines(unused: list[dict], md: bool) -> list[str]:
    """One line per constraint no rule or property used, with why."""
    dash = "- " if md else ""
    return [f"{dash}not used: {unused_shown(u)} — {u['why']}" for u in unused or ()]


def unused_shown(u: dict) -> str:
    """An unused constraint as the query gave it, its operator kept.

    >>> unused_shown({"dimension": "time", "op": "<", "value": 100.0, "unit": "hours", "why": ""})
    'time < 100h'
    >>> unused_shown({"dimension": "symptom", "value": "nan", "why": ""})
    'symptom = nan'
    """
    return format_constraint({"op": "=", **u})


def property_text(p: dict) -> str:
    """``longest input: 512 tokens`` (the aspect and value of a property)."""
    v = p.get("value")
    shown = ", ".join(v) if isinstance(v, list) else value(v, "count") if isinstance(v, (int, float)) else v
    return f"{p['aspect']}: {shown}" + (f" {p['unit']}" if p.get("unit") and not isinstance(v, list) else "")


def same_reason(e: dict) -> tuple:
    """What makes two ruled-out choices' reasons one: the property, its text, the constraint it
    contradicts and the family it comes from (a property of a whole kind rules out each the same)."""
    return e["property"]["id"], e["why"], repr(e.get("because_of")), repr(e["property"].get("via"))


def excluded_lines(excluded: list[dict], md: bool) -> list[str]:
    """One line per property that rules choices out: which choices (those one property of a
    whole kind rules out, every optimizer at inference, together), the constraint, why, the
    sources."""
    groups: dict[tuple, list[dict]] = {}
    for e in excluded or ():
        groups.setdefault(same_reason(e), []).append(e)
    out = []
    for group in groups.values():
        e = group[0]
        given = ", ".join(format_constraint(c) for c in e.get("because_of", ())) or "the constraints"
        via = f" (from {e['property']['via']['label']})" if e["property"].get("via") else ""
        which = ", ".join(f"{x['label']} ({x['id']})" for x in group)
        whose = "its" if len(group) == 1 else "a property each has,"
        own = ("" if not e.get("origin") else f" [ranked here for the rules of {origin_text(e)}]"
               if e.get("ranked_for_extension") else f" [{origin_text(e)}, not the KB's]")
        line = (f"ruled out: {which} — {given} contradicts {whose} {property_text(e['property'])}{via}{own}: "
                f"{e['why']} [{sources_short(e['sources'])}]")
        out.append(("- " if md else "") + line)
    return out


def near_lines(near: list[dict], md: bool) -> list[str]:
    """Each threshold near the user's value, both sides, and where the literature places it."""
    out = []
    for n in near or ():
        out.append(("- " if md else "") + f"near a threshold: {n['text']}")
        for lit in n.get("literature", ()):
            out.append(f"{'  - ' if md else '  '}elsewhere placed at {value(lit['threshold'], n.get('unit'))}: {lit['text']} "
                       f"[{sources_short(lit['sources'])}]")
    return out


def note_lines(r: dict, indent: str) -> list[str]:
    """The properties of a result (and its members) the constraints go past, as notes."""
    out = [f"{indent}note: {p['text']} [{sources_short(p['sources'])}]" for p in r.get("notes", ())]
    out += [f"{indent}{open_text(c)}" for c in r.get("applies_if", ())]
    if r.get("memory_saving"):
        out.append(memory_line(r["memory_saving"], indent))
    for m in r.get("members", ()):
        out += [f"{indent}note on {m['label']}: {p['text']} [{sources_short(p['sources'])}]" for p in m.get("notes", ())]
    return out


def open_text(c: dict) -> str:
    """``applies only if: Expert parallelism is for mixture-of-experts models (architecture: not
    given) [fedus2022]``: what a choice (or a part of a combination) is for that the constraints
    leave open (``applies_if``)."""
    said = "does not say" if c["given"] else "not given"
    part = f"its part {c['part']['label']} " if c.get("part") else ""
    own = f" [{origin_text(c['property'])}, not the KB's]" if c["property"].get("origin") else ""
    return f"{part}applies only if: {c['property']['label']}{own} ({c['dimension']}: {said}) [{sources_short(c['property']['sources'])}]"


def memory_line(m: dict, indent: str = "") -> str:
    """A memory saving checked against the run's memory-load (``memory_saving``), as a line."""
    return f"{indent}memory: {m['text']} [{sources_short(m['sources'])}]"


def shortfall_line(a: dict) -> list[str]:
    """The memory shortfall and what closes it (``shortfall``), as a line: what an answer whose
    memory savings do not close the gap says first, so that the pick is not read as the fix."""
    s = a.get("shortfall")
    return [f"memory shortfall: {s['text']}"] if s else []


def compute_check_line(a: dict) -> list[str]:
    """plan's verdict on the time budget for the run the answer decides on (``compute_check``),
    as a line naming the plan statement that gives it in full."""
    c = a.get("compute_check")
    return [f"compute check: {c['text']} ({c['query']})"] if c else []
