"""Answers that ask: the dimensions the user did not give whose value would change the top
of the ranking, and what to tell the reasoner next.

For the first results, every condition of their rules that was "not given" names a
dimension to try; each value those conditions test is added to the query, the choices are
ranked again, and a dimension is asked for when some value changes the pick (or gives one
where there was none). The question names the picks it would lead to, and the choices the
reference says to compare with them::

    >>> from recipekg.reason.recommend import rank
    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend x where data = tabular")[0].constraints, snap)
    >>> results = rank("architecture", facts, snap)
    >>> ask = questions("architecture", facts, results, snap, lambda trial: rank("architecture", trial, snap))
    >>> ask[0]["dimension"], ask[0]["would_change"][0]
    ('samples', 'gradient-boosted-trees')
"""

from __future__ import annotations

from recipekg.names import a_kind
from recipekg.reason.conditions import FAILED, NOT_GIVEN, PARTLY, status
from recipekg.reason.derive import derive
from recipekg.reason.answers import decision
from recipekg.reason.facts import Facts, asked_for, derived_formula
from recipekg.reason.scoring import MATCHES, evidence
from recipekg.reason.taking import same_run

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Ask
    from recipekg.contracts.recommend import Decision

#: How many results are searched for deciding dimensions, and how many questions an answer asks.
LOOK_AT, MAX_QUESTIONS = 12, 3


def questions(kind: str, facts: dict, results: list[dict], snap: dict, rerank,
              members: list[dict] | None = None, decided: Decision | None = None) -> list[Ask]:
    """``[{"dimension", "text", "would_change"}]`` for ``results`` ranked under ``facts``;
    ``rerank(trial_facts) -> results`` ranks the choices again; ``members``: the ranked
    results family entries fold (their rules waiting for a dimension count too); ``decided``:
    ``decision(results)`` when the caller has it."""
    if not results:
        return _where_to_start(kind, facts, snap)
    sections = snap["recipe_sections"] if kind in snap["sectioned_kinds"] else None
    first_decision = (decision(results, nodes=snap["nodes"], sections=sections, kind=kind) if sections
                      else decided or decision(results))
    picks = (_section_picks(first_decision) if sections else {}) or {None: first_decision["pick"]}
    ties = _section_ties(first_decision)
    pick = next(iter(picks.values()))
    sections = sections if pick is not None else None  # (with no pick, whatever a value would pick is news)
    given = {n: f for n, f in facts.items() if not f.derived}
    first = {i for r in results[:LOOK_AT] for i in (r["iri"], *(m["iri"] for m in r.get("members", ())))}
    looked_at = results[:LOOK_AT] + [r for r in members or () if r["iri"] in first]
    # with nothing decided (no pick, no choice matching), the dimensions derived from others
    # are asked for even when none of what they are derived from is given: the answer's
    # only way on is what its waiting rules need
    undecided = pick is None and all(r["group"] != MATCHES for r in results)
    found = []
    for dim, conds in _open_dimensions(looked_at, given, facts, snap, undecided).items():
        if _is_the_choice(dim, kind, snap):
            continue  # (which method to train by, asked of the approaches that are those methods: circular)
        changed, named, tried = False, [], _trial_values(conds, snap, given.get(dim))
        for value in tried:
            d = decision(rerank(derive({**given, dim: value}, snap)), nodes=snap["nodes"] if sections else None,
                         sections=sections, kind=kind)
            # the first section (the pick's, those alongside it, then one the value opens) whose pick it changes
            there = _section_picks(d) if sections else {None: d["pick"]}
            settled = {x: t for x, t in ties.items() if there.get(x) == picks[x] and _settles(t, d, x)}
            section = next((x for x, p in picks.items() if there.get(x) not in (None, p) or x in settled),
                           next((x for x in there if x not in picks), None)) if sections else None
            was, now = picks.get(section), there.get(section)
            if section in settled:  # the pick stays, and the choices tied with it fall behind it
                changed = True
                named += [i for i in [was, *settled[section]] if i not in named]
                continue
            if now is None or now == was or _within(was, now, snap):
                continue  # the pick stays, or a family the pick is one of would: nothing to decide
            if sections and section != next(iter(picks)) and not same_run(pick, now, snap):
                continue  # another part of a run the pick is not (a pretraining strategy beside a fine-tune)
            changed = True
            named += [i for i in [was, now, *d["compare_with"]] if i and i not in named]
        if changed:
            narrowed = [v for t in tried for v in t.values or ()] if dim in given else []
            found.append(_marked(_question(snap["dimensions"][dim], named, snap, facts, narrowed), conds, snap))
    asked = {q["dimension"]: set(q["would_change"]) for q in found}
    found = [q for q in found if not _repeats(q, asked, facts, snap) and not _restates(q, found, facts, snap)]
    found.sort(key=lambda q: (-len(q["would_change"]), q["dimension"]))
    if not found and undecided:  # no one value decides (a rule waiting for two): where to start
        return _where_to_start(kind, facts, snap)
    return found[:MAX_QUESTIONS]


def _is_the_choice(dim: str, kind: str, snap: dict) -> bool:
    """Whether giving ``dim`` makes the choice asked about: a value of it is a training method
    that a choice of ``kind`` is (``rkg:asMethod``: LoRA the approach is ``method = lora``), so
    asking for it to decide between approaches asks the user for the answer.

    >>> _is_the_choice("method", "approach", snap), _is_the_choice("method", "technique", snap)
    (True, False)
    """
    nodes, values = snap["nodes"], snap["dimensions"][dim]["values"]
    methods = set(values.values()) if values else set()
    return any(m in methods and kind in nodes.get(a, {}).get("kinds", ()) for a, m in snap["training_methods"].items())


def _section_picks(d: Decision) -> dict:
    """Section → its pick, the pick's section first, then those alongside it in rank order."""
    out = {d.get("section"): d["pick"]} if d["pick"] else {}
    out.update((e["section"], e["pick"]) for e in d.get("alongside", ()))
    return out


def _section_ties(d: Decision) -> dict:
    """Section → the choices tied with its pick (only the ties: the advice does not separate them)."""
    out = {d.get("section"): d["tied_with"]} if d["pick"] and d.get("tied_with") else {}
    out.update((e["section"], e["tied_with"]) for e in d.get("alongside", ()) if e.get("tied_with"))
    return out


def _settles(tied: list[str], d: Decision, section) -> bool:
    """Whether decision ``d`` separates its ``section``'s pick from every choice tied with it
    before (none of them still tied with it)."""
    return not set(tied) & set(_section_ties(d).get(section, ()))


def _where_to_start(kind: str, facts: dict, snap: dict) -> list[Ask]:
    """For an answer no rule reaches (neither applying nor waiting): the dimensions the query
    neither gives nor derives that rules of the kind read which none of its constraints rule
    out (nor all the choices they name), the most read first, each asked for (a derived one
    through what it is derived from), none twice; they would change nothing known yet. A query
    naming a value the KB has no advice for (a symptom without a fix) is pointed to the nearest
    advice instead, by its no-advice line, not to the kind's side conditions.

    >>> from recipekg.reason.resolve import facts_of
    >>> [q["dimension"] for q in _where_to_start("approach", facts_of(parse("recommend approach where data = tabular")[0].constraints, snap), snap)]
    ['params', 'tier', 'hardware']
    """
    nodes = snap["nodes"]
    if any(nodes.get(v, {}).get("no_advice") for f in facts.values() if not f.derived for v in f.values or ()):
        return []  # the answer points to the nearest advice the KB has (its no-advice line) instead
    entry = snap["rule_index"]["kinds"].get(kind) or {}
    out: list[Ask] = []
    asked: set[str] = set()
    ruled: dict[str, bool] = {}
    for name, positions in entry.get("dimensions", ()):
        dim = snap["dimensions"].get(name)
        if dim is None or name in facts or dim.get("derived_by") and derived_formula(dim, facts, snap) is None:
            continue  # (a share a formula computes only for other methods: training memory at inference)
        missing = [d for d in dim.get("derived_from") or (name,) if d not in facts]
        if not missing or set(missing) <= asked:
            continue
        rows = (entry["rows"][p] for p in positions)
        n = sum(1 for row in rows if _open(row, facts, snap) and _names_open(row, kind, facts, snap, ruled))
        if not n:
            continue
        asked |= set(missing)
        out.append({"dimension": name, "would_change": [],
                    "text": f"to get {kind} advice, give {asked_for(dim, snap, facts)}: "
                            + (f"{n} {kind} rules depend on {name} and nothing you gave rules them out" if n > 1 else
                               f"{a_kind(kind)} rule depends on {name} and nothing you gave rules it out")})
        if len(out) == MAX_QUESTIONS:
            break
    return out


def _open(row: dict, facts: dict, snap: dict) -> bool:
    """Whether no condition of a rule fails on the query's facts (one it names but the KB does
    not describe fails)."""
    conditions = snap["conditions"]
    return all(c in conditions and status(conditions[c], facts, snap) != FAILED for c in row["conditions"])


def _names_open(row: dict, kind: str, facts: dict, snap: dict, ruled: dict[str, bool]) -> bool:
    """Whether a rule names some choice the constraints do not rule out (by a property they
    contradict: no training technique for ``method = inference``); ``ruled`` keeps each
    choice's verdict. A rule whose every choice is ruled out is no place to start."""
    from recipekg.reason.properties import CONTRADICTS, checks
    for choice, _side in row["targets"]:
        if choice not in ruled:
            ruled[choice] = any(c["verdict"] == CONTRADICTS for c in checks(choice, kind, facts, snap))
        if not ruled[choice]:
            return True
    return False


def _repeats(q: Ask, asked: dict[str, set], facts: dict, snap: dict) -> bool:
    """Whether a question about a derived dimension asks for the one input another question
    already asks for, to the same end (the memory load through the GPUs, beside the GPUs')."""
    missing = [d for d in snap["dimensions"][q["dimension"]].get("derived_from") or () if d not in facts]
    return len(missing) == 1 and set(q["would_change"]) <= asked.get(missing[0], set())


def _restates(q: Ask, found: list[Ask], facts: dict, snap: dict) -> bool:
    """Whether a question about a derived dimension asks for the same missing inputs as a
    question about another derived dimension before it (in the dimensions' order), to the same
    end: the KV cache against the GPUs beside 16-bit or 4-bit weights needs the same sequences
    served at once, asked once."""
    dims = snap["dimensions"]

    def missing(x: Ask) -> frozenset:
        return frozenset(d for d in dims[x["dimension"]].get("derived_from") or () if d not in facts)

    def order(x: Ask) -> tuple:
        return dims[x["dimension"]].get("order") or 0, x["dimension"]

    mine = missing(q)
    return bool(mine) and any(o is not q and missing(o) == mine and order(o) < order(q)
                              and set(q["would_change"]) <= set(o["would_change"]) for o in found)


def _open_dimensions(results: list[dict], given: dict, facts: dict, snap: dict,
                     undecided: bool) -> dict[str, list[dict]]:
    """Dimension → the conditions on it that the first results' rules left "not given". A
    dimension derived from others (the compute tier from the GPUs and time, the memory per
    GPU from the hardware) that the query neither gives nor derives is open too when the
    answer is ``undecided`` (its waiting rules are the only way on) or when the query gives
    some of what it is derived from (the model and the hardware, not the GPUs, for the
    memory load): its trials give it directly, as a user may, and its question asks for
    what it is derived from that the query did not give."""
    out: dict[str, list[dict]] = {}
    weights = {s["label"]: s["weight"] for s in snap["strengths"].values()}
    for r in results:
        held = _holding(r, weights, snap)
        for side in ("because", "against"):
            for reason in r[side]:
                if held and reason["match"] != "full" and \
                        weights[reason["strength"]] <= held.get(_claim(side, reason, snap), -1):
                    continue  # its claim already holds here, as strong (an OR split's other rule): nothing to ask
                _waiting(reason, given, facts, snap, undecided, out)
    return out


def _holding(result: dict, weights: dict[str, float], snap: dict) -> dict:
    """Each claim that already holds for ``result`` (:func:`_claim`) → the strongest weight of
    its fully matching reasons. A rule waiting for a dimension that makes the same claim, no
    stronger, restates one of them (the reference's OR split in two rules: one section, the
    same choices advised), so the dimension it waits for decides nothing the answer does not
    already hold (the scoring counts a section's strongest rule only). A rule of the section
    naming fewer choices (LARS of "LAMB or LARS") says more: it is no restatement."""
    out: dict = {}
    for side in ("because", "against"):
        for x in result[side]:
            if x["match"] == "full":
                key = _claim(side, x, snap)
                out[key] = max(out.get(key, -1.0), weights[x["strength"]])
    return out


def _claim(side: str, reason: dict, snap: dict) -> tuple:
    """What a reason claims: its side, its evidence (:func:`recipekg.reason.scoring.evidence`:
    a section of the reference, an extension's sources) and the choices its rule names there.

    >>> rule = "https://w3id.org/recipekg/rule/serving-generation-paged-attention"
    >>> _claim("because", {"rule": rule, "section": "S"}, snap)
    ('because', 'S', ('https://w3id.org/recipekg/id/paged-attention',))
    """
    rule = snap["rules"].get(reason["rule"], {})
    return side, evidence(reason), tuple(sorted(rule.get("recommends" if side == "because" else "against", ())))


def _waiting(reason: dict, given: dict, facts: dict, snap: dict, undecided: bool, out: dict) -> None:
    """Add to ``out`` (dimension → conditions) the conditions ``reason`` waits for that
    :func:`_open_dimensions` asks about."""
    rule = snap["rules"].get(reason["rule"], {})
    by_label = {cond["label"]: cond for cond in map(snap["conditions"].get, rule.get("conditions", ())) if cond}
    for c in reason["conditions"]:
        dim = snap["dimensions"].get(c["dimension"] or "")
        cond = by_label.get(c["condition"])
        if c["status"] == PARTLY and dim is not None and cond is not None and _narrower(cond, given.get(dim["name"]), snap):
            pass  # a broader value given (data = visual): the values under it it lists are worth trying
        elif c["status"] != NOT_GIVEN or dim is None or dim["name"] in given or \
                _derived(dim) and not (undecided or _partly_given(dim, given)):
            continue
        if cond is not None and cond not in out.setdefault(dim["name"], []):
            out[dim["name"]].append(cond)


def _narrower(cond: dict, f: Facts | None, snap: dict) -> list[str]:
    """The values ``cond`` lists that are narrower than a value the query gives (``images`` and
    ``video`` under ``data = visual``): a rule on them holds only partly, and giving one of them
    may decide (empty when the query gives no such broader value).

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend architecture where data = visual")[0].constraints, snap)
    >>> images = snap["dimensions"]["data"]["values"]["images"]
    >>> [snap["nodes"][v]["id"] for v in _narrower({"values": [images]}, facts["data"], snap)]
    ['images']
    """
    if f is None or not f.values or not cond["values"]:
        return []
    nodes = snap["nodes"]
    return [v for v in cond["values"] if f.values & set(nodes.get(v, {}).get("ancestors", ()))]


def _derived(dim: dict) -> bool:
    return bool(dim.get("derived_via") or dim.get("derived_from"))


def _partly_given(dim: dict, given: dict) -> bool:
    """Whether the query gives some of the dimensions ``dim`` is derived from."""
    return any(d in given for d in dim.get("derived_from") or ())


def _trial_values(conds: list[dict], snap: dict, given: Facts | None = None) -> list[Facts]:
    """One value inside each condition: each value it lists (under a broader value the query
    gives, ``given``, those narrower than it), or a number inside its bounds."""
    out = []
    for cond in conds:
        dim = snap["dimensions"][cond["dimension"]]
        if cond["values"]:
            values = _narrower(cond, given, snap) if given is not None else cond["values"]
            out += [Facts(dim["name"], dim["kind"], values={v}) for v in values]
            continue
        x = _inside(cond["min"], cond["max"])
        out.append(Facts(dim["name"], dim["kind"], intervals=[(x, True, x, True)]))
    return out


def _inside(low: float | None, high: float | None) -> float:
    """A number strictly inside ``low``–``high`` (either may be open-ended)."""
    if low is not None and high is not None:
        return (low + high) / 2
    if low is not None:
        return low * 2 if low > 0 else low + 1
    return high / 2 if high and high > 0 else (high or 0) - 1


def _within(choice: str | None, family: str, snap: dict) -> bool:
    """Whether ``choice`` is a member of ``family`` (``skos:broader``, at any depth).

    >>> _within("xgboost", "gradient-boosted-trees", snap), _within("gradient-boosted-trees", "xgboost", snap)
    (True, False)
    """
    iris = snap["rule_index"]["choices"]
    return bool(choice) and iris.get(family) in snap["nodes"].get(iris.get(choice), {}).get("ancestors", ())


def _question(dim: dict, would_change: list[str], snap: dict, given: dict | tuple = (),
              narrowed: list[str] | tuple = ()) -> Ask:
    """The question for ``dim``, whose values would change the pick to those ``would_change``
    names; ``narrowed``: the narrower values tried in place of a broader one the query gives
    (``data = visual``: images or video), which the question then asks to choose between."""
    labels = [_label(i, snap) for i in would_change]
    asked = asked_for(dim, snap, given)
    if narrowed:
        f = given[dim["name"]] if isinstance(given, dict) and dim["name"] in given else None
        broad = " or ".join(sorted(snap["nodes"][v]["id"] for v in (f.values if f is not None and f.values else ())))
        ids = list(dict.fromkeys(snap["nodes"][v]["id"] for v in narrowed))
        asked = (f"{dim['name']} more precisely than {broad}: {dim['name']} = "
                 + (" or ".join(ids) if len(ids) < 3 else ", ".join(ids[:-1]) + " or " + ids[-1]))
    if len(labels) > 1 and all(_within(i, would_change[0], snap) for i in would_change[1:]):
        # every other pick is a member of this one: the question narrows the family down
        narrower = " or ".join(labels[1:])
        return {"dimension": dim["name"], "text": f"to narrow {labels[0]} down to {narrower}, give {asked}",
                "would_change": would_change}
    if len(labels) == 1:
        return {"dimension": dim["name"], "text": f"to settle on {labels[0]}, give {asked}",
                "would_change": would_change}
    between = ", ".join(labels[:-1]) + " and " + labels[-1]
    return {"dimension": dim["name"], "text": f"to decide between {between}, give {asked}",
            "would_change": would_change}


def _marked(q: Ask, conds: list[dict], snap: dict) -> Ask:
    """``q`` with the ``origin`` of the first thing in it an extension added, when one did: the
    dimension asked for, a condition it was asked for by, a value those conditions name, or a
    choice it would change (hostile round 7, I: "give data = hx7-spreadsheets" from an
    extension's value, unmarked).

    >>> q = {"dimension": "data", "text": "...", "would_change": ["tabnet"]}
    >>> _marked(dict(q), [{"values": [], "origin": {"file": "t.ttl", "line": 4}}], snap)["origin"]
    {'file': 't.ttl', 'line': 4}
    >>> "origin" in _marked(dict(q), [{"values": []}], snap)
    False
    """
    nodes, choices = snap["nodes"], snap["rule_index"]["choices"]
    found = [snap["dimensions"].get(q["dimension"], {}), *conds,
             *(nodes.get(v, {}) for c in conds for v in c.get("values") or ()),
             *(nodes.get(choices.get(i, ""), {}) for i in q["would_change"])]
    origin = next((x["origin"] for x in found if x.get("origin")), None)
    if origin is not None:
        q["origin"] = origin
    return q


def _label(choice_id: str, snap: dict) -> str:
    iri = snap["rule_index"]["choices"].get(choice_id)
    return snap["nodes"][iri]["label"] if iri else choice_id
