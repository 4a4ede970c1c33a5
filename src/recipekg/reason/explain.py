"""``explain <choice> [where ...]``: the rules for and against a choice, and what would change.

    >>> out = explain(parse("explain vit where data = images and samples = 3000")[0], snap)
    >>> out["rank"] > 1, out["would_rank_first_if"][0]["query"].startswith("recommend architecture where")
    (True, True)

For every rule naming the choice, each condition is marked held, failed, partly or not
given; rules about its families (``skos:broader``) that apply or are near their threshold
are listed too (``family_rules``, each ``via`` the family), and the reasons against it, its own and its families', come first. Its
properties are checked against the constraints (``properties``; a contradicted one excludes
it: ``excluded``). The smallest change is found by trying, for each rule that recommends the
choice, the constraints that would make all its conditions hold, re-ranking, and keeping the
candidates that put the choice (or its family's entry) first with the fewest changes (adding
a constraint counts one, overriding one the user gave counts two). It only turns knobs:
a dimension that states the problem (``rkg:problemFact``: data, task, symptom, ...) the user
gave is never changed. The backend (:mod:`recipekg.reason.backend`) evaluates the rules and
every re-ranking.
"""

from __future__ import annotations

import math

from recipekg.query.ast import Explain
from recipekg.reason.added import added_by_extensions
from recipekg.reason.answers import choice_json, constraints_json, fill_waits, reason_json, tied_with_first, waits_for
from recipekg.reason.backend import Backend, NativeBackend, ranks_kind
from recipekg.reason.changes import smallest_change
from recipekg.reason.families import entry_of, group_families
from recipekg.reason.properties import CONTRADICTS, checks, excluded_json
from recipekg.reason.shortfall import saving_note, shortfall
from recipekg.reason.recommend import ranking
from recipekg.reason.scope import unrunnable
from recipekg.reason.resolve import facts_of, resolve_choice
from recipekg.reason.scoring import MATCHES
from recipekg.reason.situation import near_reasons, sources_of, unused
from recipekg.reason.taking import taken_verdicts

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.common import Property
    from recipekg.contracts.explain import Behind, Brief, CheckedProperty, ExplainBody, ExplainRule, Verdict
    from recipekg.contracts.recommend import Result


def explain(stmt: Explain, snap: dict, backend: Backend | None = None) -> ExplainBody:
    """The answer to an ``explain`` statement (the JSON the spec describes)."""
    backend = backend or NativeBackend(snap)
    iri = resolve_choice(stmt.choice, snap)
    shown_facts = facts_of(stmt.constraints, snap)
    facts, unrun = unrunnable(shown_facts, snap)  # (a precision the hardware does not run: read without it)
    node = snap["nodes"][iri]
    rankings = {kind: ranking(kind, facts, snap, backend, lean=True) for kind in node["kinds"]}  # ranks, not shown
    entries = {kind: group_families(r["results"], snap) for kind, r in rankings.items()}
    part, ours, ranks = _ranked_in_sections(iri, node["kinds"], entries, snap)
    kind = min(node["kinds"], key=lambda k: (ranks[k] or math.inf, k))
    entry: Any = entry_of(iri, entries[kind]) or {}
    fill_waits(entry, snap, facts)
    rules = _rules(iri, None, facts, snap, backend)
    own = {r["rule"] for r in rules}
    family = [r for a in node.get("ancestors", ()) if kind in snap["nodes"].get(a, {}).get("kinds", ())
              for r in _rules(a, a, facts, snap, backend) if _about_situation(r)
              and ranks_kind(snap["rules"][r["rule"]], kind) and r["rule"] not in own and not own.add(r["rule"])]
    verdicts: list[Any] = checks(iri, kind, facts, snap)  # each {"property": Property, "verdict", ...}
    contra = [c for c in verdicts if c["verdict"] == CONTRADICTS]

    def first(k: str, trial: dict) -> bool:
        """Whether the choice (or its family's entry) ranks first under ``trial`` with the advice
        for it outweighing the advice against it (first of a list the advice is all against is
        no pick): from the rules that could decide when they decide some choice there (the first
        entry is then theirs), else from every rule."""
        if trial is facts:
            return ranks[k] == 1 and ours[k][0]["score"] > 0
        for decisive in (True, False):
            ranked = group_families(ranking(k, trial, snap, backend, lean=True, decisive=decisive)["results"], snap)
            head: list[Any] = in_section(ranked, part[k], k, snap)
            if not decisive or head and head[0]["group"] == MATCHES:
                return bool(head) and head[0]["score"] > 0 and entry_of(iri, ranked) is head[0]
        return False

    change = smallest_change(iri, kind, facts, snap, first)
    if ranks[kind] == 1 and not change["found"] and not change.get("why") and not first(kind, facts):
        change["why"] = "it heads a list the advice is all against (no pick), and no change found turns the advice for it"
    out: ExplainBody = {"statement": "explain", "query": stmt.text.strip(), "kind": kind,
           "choice": {**choice_json(iri, snap), "definition": node["definition"]},
           "constraints": constraints_json(shown_facts), "rank": ranks[kind], "ranks": ranks,
           "group": entry.get("group"),
           # unranked because every rule about it is against it and waits: what those rules wait for
           "waits_for": entry.get("waits_for") or ([] if entry or contra else
                                                  waits_for([r for r in rules if r["side"] == "against"], snap, facts)),
           "rules": rules, "family_rules": family,
           "against": [_brief(r) for r in rules + family if r["side"] == "against" and r["fires"]],
           "properties": [_checked(c["property"], c["verdict"]) for c in verdicts],
           "excluded": excluded_json(iri, contra, facts, snap) if contra else None,
           "unused": unrun + unused(kind, facts, rankings[kind]["evaluated"], rankings[kind]["verdicts"] + verdicts,
                                    snap, rankings[kind]["near"]),
           "would_rank_first_if": change["found"]}
    _placed(out, entry, iri)
    if ahead := added_by_extensions(ours[kind][:max(0, (ranks[kind] or 1) - 1)]):
        out["ahead_by_extensions"] = ahead  # (hostile round 5, 014: the rank an extension's rules moved, unmarked)
    if (section := part[kind]) is not None:
        out["section"] = section
    if ruled := _ruling(rules + family, facts):  # what rules the choice's own rules out is used: it is the why
        out["unused"] = [u for u in out["unused"] if u["dimension"] not in ruled]
    _yours(out, kind, facts, entries[kind], snap)
    if entry.get("group") in (MATCHES, "would apply"):  # (tied within its group: the matches, or those waiting)
        peers = [r for r in ours[kind] if r is not entry and r["group"] == entry["group"]
                 and r["score"] == entry["score"]]
        label = {r["id"]: r["label"] for r in peers}
        if peers and (tied := tied_with_first([entry, *peers])):
            out["tied_with"] = [{"id": i, "label": label[i]} for i in tied]
            if not change["found"] and (ranks[kind] == 1 or ours[kind][0]["id"] in tied):
                # (a tie for first: what would decide it is recommend's question; deeper ties are only said)
                out["settled_by"] = _settling(kind, node["id"], tied, facts, ours[kind], snap, backend)
    if change.get("why"):
        out["no_change_because"] = change["why"]
    if not change["found"] and not out.get("tied_with") and (above := behind(entry, ours[kind], snap)):
        out["behind"] = above
    if note := saving_note(iri, facts, snap, entry.get("because", ())):
        out["memory_saving"] = note
    noted = [{"id": node["id"], "label": node["label"], "iri": iri, "memory_saving": note}] if note else []
    if short := shortfall(noted, facts, snap):
        out["shortfall"] = short
    return out


def _ruling(rules: list, facts: dict) -> set[str]:
    """The given dimensions on which a condition of a rule about the explained choice fails (a
    derived one through those it comes from): they are why that rule does not
    apply, so the answer uses them, never lists them as unused (LAMB at batch-size = 4096, whose
    rules need more than 32K).

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("explain lamb where batch-size = 4096 and gpus = 8")[0].constraints, snap)
    >>> sorted(_ruling([{"fires": False, "conditions": [{"dimension": "batch-size", "status": "failed"},
    ...                                                  {"dimension": "gpus", "status": "held"}]}], facts))
    ['batch-size']
    """
    return {d for r in rules if not r["fires"] for c in r["conditions"]
            if c["status"] == "failed" and c.get("dimension") in facts for d in sources_of(c["dimension"], facts)}


def _yours(out: ExplainBody, kind: str, facts: dict, entries: list, snap: dict) -> None:
    """Where the ranking puts each other choice of ``kind`` the user gave (``yours``: their
    optimizer, when AdamW is explained; recommend's ``decision.yours``); those and the choice
    explained, given, are used constraints, not unused ones."""
    from recipekg.reason.elsewhere import given_on, yours

    choice = out["choice"]["id"]
    if mine := [y for y in yours(kind, facts, entries, snap, []) if y["choice"] != choice]:
        out["yours"] = mine
    if said := given_on(facts, snap, [choice, *(y["choice"] for y in mine)]):
        out["unused"] = [u for u in out["unused"] if u["dimension"] not in said]


def _settling(kind: str, choice: str, tied: list[str], facts: dict, results: list[Any], snap: dict,
              backend: Backend) -> list[Any]:
    """The questions recommend would ask (:func:`recipekg.reason.ask.questions`) that decide
    between a first-ranked choice and the choices tied with it: what to give to see whether its
    advice puts it above them (CLIP tied with the unified multimodal transformer: whether a
    pretrained model is available)."""
    from recipekg.reason.ask import questions
    from recipekg.reason.recommend import rank

    native = backend if isinstance(backend, NativeBackend) else NativeBackend(snap)
    rerank = lambda trial: group_families(  # noqa: E731
        rank(kind, trial, snap, native, lean=True, decisive=True, shown=0), snap)
    return [q for q in questions(kind, facts, results, snap, rerank)
            if choice in q["would_change"] and set(tied) & set(q["would_change"])]


def _checked(prop: Property, verdict: Verdict) -> CheckedProperty:
    return {**prop, "verdict": verdict}


def _ranked_in_sections(iri: str, kinds: list[str], entries: dict, snap: dict) -> tuple[dict, dict, dict]:
    """For each kind of the choice: its recipe section (None for a kind without sections), the
    entries of that section, and the choice's rank among them. A kind whose choices are parts
    of one run (approach: training from scratch beside DDP) ranks the choice among its recipe
    section's, as recommend decides its pick and the picks alongside it."""
    part = {kind: _section(iri, kind, snap) for kind in kinds}
    ours = {kind: in_section(entries[kind], part[kind], kind, snap) for kind in kinds}
    return part, ours, {kind: _rank(entry_of(iri, entries[kind]), ours[kind], part[kind]) for kind in kinds}


def _placed(out: ExplainBody, entry: Result | None, iri: str) -> None:
    """The entry's score (below zero: advised against), and the family entry the choice is in."""
    if entry and entry.get("score") is not None:
        out["score"] = entry["score"]
    if entry and entry["iri"] != iri:
        out["member_of"] = {"id": entry["id"], "label": entry["label"], "rank": entry["rank"]}


def _rank(entry: Result | None, ours: list, section: str | None) -> int | None:
    """The entry's rank: among its recipe section's entries (``ours``) for a kind whose choices
    are parts of one run, else among every entry."""
    if entry is None:
        return None
    return entry["rank"] if section is None else next((n for n, e in enumerate(ours, 1) if e is entry), entry["rank"])


def _section(iri: str, kind: str, snap: dict) -> str | None:
    """The recipe section a choice of ``kind`` is in, when ``kind``'s choices are parts of one
    run (``rkg:recipeSection``; a choice without one is in the kind's own); None for other kinds."""
    return (snap["recipe_sections"].get(iri) or kind) if kind in snap["sectioned_kinds"] else None


def in_section(entries: list, section: str | None, kind: str, snap: dict) -> list:
    """``entries`` of ``section`` (every entry when None), in rank order."""
    if section is None:
        return entries
    return [e for e in entries if (snap["recipe_sections"].get(e["iri"]) or kind) == section]


def _rules(iri: str, via: str | None, facts: dict, snap: dict, backend: Backend) -> list[ExplainRule]:
    """Every rule naming ``iri``, with its evaluation, fired rules first and against before for
    among them; a rule near its threshold says so (``near``); ``via`` the family it is about."""
    named = backend.naming(iri, facts)
    near = near_reasons(named, facts, snap["dimensions"])
    out: list[ExplainRule] = []
    for a in named:
        r: ExplainRule = {"side": a.side, "fires": a.ev["fires"], **reason_json(a.rule, a.view, a.ev, snap)}
        if (a.rule, a.choice, a.side) in near:
            r["near"] = near[(a.rule, a.choice, a.side)]
        if via:
            r["via"] = {"id": snap["nodes"][via]["id"], "label": snap["nodes"][via]["label"]}
        out.append(r)
    fired = {r["rule"] for r in out if r["fires"] and r["side"] == "against"}
    for a, _, taken in [] if via else taken_verdicts(iri, facts, snap, backend):  # (a family's is its own)
        if a.rule not in fired:  # it applies once the choice is taken: it replaces the waiting one
            out = [r for r in out if not (r["rule"] == a.rule and r["side"] == "against")]
            out.append({"side": "against", "fires": True, **reason_json(a.rule, a.view, a.ev, snap), "taken": taken})
    out.sort(key=lambda r: (not r["fires"], r["side"] != "for", -r["contribution"], r["id"]))
    return out


def _about_situation(r: ExplainRule) -> bool:
    """A family rule worth showing with the choice: one about the situation that applies or is
    near its threshold (general advice about the family, a rule the constraints rule out or
    one that waits for them speak of the family, not of this member here)."""
    return r["fires"] and r["match"] != "general" or "near" in r


def _brief(r: ExplainRule) -> Brief:
    out: Brief = {"rule": r["rule"], "id": r["id"], "text": r["text"], "strength": r["strength"]}
    if "via" in r:
        out["via"] = r["via"]
    if "origin" in r:   # (an extension's rule says so in the digest too: hostile round 8, 040)
        out["origin"] = r["origin"]
    return out


def behind(entry: dict, results: list, snap: dict | None = None) -> Behind | None:
    """For a choice ranked below another of the same score in its group, that choice and what
    puts it first (audit 14/09: Chronos second to TimesFM at 0.90 said only "no change found"):
    the first of the ranking's tie-breaks (:func:`recipekg.reason.scoring.rank_key`) on which
    they differ, in words; None when first, tied (``tied_with`` says so) or below on score.

    >>> a = {"id": "a", "iri": "A", "label": "A", "group": "matches", "score": 0.9, "specificity": [2], "match": "full",
    ...      "because": [{"match": "full", "strength": "strong", "conditions": [{"dimension": "data"}]}],
    ...      "fits": ["data", "task"]}
    >>> b = dict(a, id="b", iri="B", label="B", fits=["data"])
    >>> behind(b, [a, b])["by"]
    "its properties also fit your task, which B's do not"
    """
    rank = next((i for i, r in enumerate(results) if r is entry), None)
    if not rank:
        return None
    above = results[rank - 1]
    if above.get("group") != entry.get("group") or above.get("score") != entry.get("score"):
        return None
    out: Behind = {"id": above["id"], "label": above["label"], "by": _separated(above, entry, snap or {})}
    return out


def _separated(above: dict, me: dict, snap: dict) -> str:
    """The first tie-break of the ranking that puts ``above`` before ``me``, in words."""
    from recipekg.reason.answers import strength_ranks

    ranks = strength_ranks(snap) if snap.get("strengths") else {}

    def fits(r: dict) -> set:
        read = {c["dimension"] for x in r["because"] if x["match"] in ("full", "general", "near")
                for c in x.get("conditions", ())}
        return set(r.get("fits") or ()) - read

    def strongest(r: dict) -> int:
        return max((ranks.get(x.get("strength"), 0) for x in r["because"] if x["match"] in ("full", "general")),
                   default=0)

    def depth(r: dict) -> int:
        return len(snap.get("nodes", {}).get(r.get("iri"), {}).get("ancestors", ()))

    if above.get("specificity") != me.get("specificity"):
        return "its advice reads more of your constraints"
    if more := sorted(fits(above) - fits(me)):
        return f"its properties also fit your {', '.join(more)}, which {me['label']}'s do not"
    if above.get("match") != me.get("match"):
        return "its advice applies more fully"
    if strongest(above) != strongest(me):
        return "a stronger rule decides for it"
    if depth(above) < depth(me):
        return "it is the broader choice, and a family comes before its members"
    return "the ranking's last tie-breaks (the support of its advice, a checklist's order, then the ids)"
