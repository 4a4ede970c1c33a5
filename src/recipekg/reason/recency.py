"""How recent an answer's knowledge is: ``as_of`` (the date of the newest source the answer
cites) and ``superseded_by`` on every claim in it that a newer source revises.

    >>> a = {"sources": [{"id": "hoffmann2022", "role": "states"}, {"id": "muennighoff2023", "role": "states"}]}
    >>> stamp(a, snap)["as_of"], a["as_of_source"]
    ('2023-05-01', 'muennighoff2023')

A source's date is what the KB knows of it: a living source's access date (repositories,
documentation and vendor pages, which change after they are first put up), else the later of
its arXiv first-submission month (the id's YYMM) and its publication year (a blog post's too: it
is dated when it is posted, so a 2019 post does not make an answer read as current, QA7 F12); the KB records no day for a paper, so a month or a year stands at its first
day, and ``as_of`` is a lower bound on how current the answer is. The walk visits the answer
once (bounded by its size); claims are found where answers name them: a rule's IRI, a
quantity's formula, a constant's id.
"""

from __future__ import annotations

from recipekg.knowledge.derived import once

_LIVING = ("software", "webpage")
_LEAVES = frozenset((str, int, float, bool, type(None)))  # the values of an answer that hold nothing


def source_date(paper: dict) -> str | None:
    """The date the KB knows for a source, as YYYY-MM-DD (None when it knows none).

    >>> source_date({"year": 2022, "arxiv": "2203.15556", "entry_type": "inproceedings"})
    '2022-03-01'
    >>> source_date({"year": 2024, "arxiv": None, "entry_type": "webpage", "accessed": "2026-11-30"})
    '2026-11-30'
    >>> source_date({"year": 2019, "arxiv": None, "entry_type": "blog", "accessed": "2026-11-30"})
    '2019-01-01'
    """
    if paper.get("entry_type") in _LIVING and _is_date(paper.get("accessed") or ""):
        return paper["accessed"]
    found = []
    if month := _arxiv_month(paper.get("arxiv") or ""):
        found.append(f"20{month[:2]}-{month[2:]}-01")
    if paper.get("year"):
        found.append(f"{int(paper['year']):04d}-01-01")
    return max(found) if found else None


def _is_date(text: str) -> bool:
    """Whether ``text`` is YYYY-MM-DD (``re.match(r"^\\d{4}-\\d\\d-\\d\\d$")``, a final newline
    allowed as ``$`` allows it), written out: a regular expression would import :mod:`re` (with
    :mod:`enum` and :mod:`functools`) on every cold answer.

    >>> _is_date("2026-11-30"), _is_date("2026-11-30\\n"), _is_date("2026-1-30"), _is_date("２０２６-11-30")
    (True, True, False, True)
    """
    text = text[:-1] if text.endswith("\n") else text
    return (len(text) == 10 and text[4] == "-" and text[7] == "-"
            and text[:4].isdecimal() and text[5:7].isdecimal() and text[8:].isdecimal())


def _arxiv_month(arxiv: str) -> str | None:
    """The YYMM of a new-style arXiv id (``r"^(\\d\\d)(\\d\\d)\\.\\d{4,5}"``), else None.

    >>> _arxiv_month("2203.15556"), _arxiv_month("1706.037"), _arxiv_month("hep-th/9901001")
    ('2203', None, None)
    """
    if len(arxiv) >= 9 and arxiv[4] == "." and arxiv[:4].isdecimal() and arxiv[5:9].isdecimal():
        return arxiv[:4]
    return None


def stamp(answer: dict, snap: dict) -> dict:
    """``answer`` with ``as_of``, ``as_of_source`` and, on each claim a newer source revises,
    ``superseded_by`` (also listed once in ``answer["superseded"]``)."""
    claims = once(snap, "revised claims", _revised)
    dated = once(snap, "source dates", _no_dates)  # each paper's date, once per snapshot
    newest: tuple[str, str] | None = None
    revised: dict[str, dict] = {}
    dicts, lists = [answer], []   # what is left to visit: every dict of the answer once
    while dicts or lists:
        if lists:
            _containers(lists.pop(), dicts, lists)
            continue
        node = dicts.pop()
        if "role" in node and isinstance(pid := node.get("id"), str):  # a source (papers are named by str)
            try:
                date = dated[pid]
            except KeyError:
                papers = snap["papers"]
                date = dated[pid] = source_date(papers[pid]) if pid in papers else None
            if date and (newest is None or (date, pid) > newest):
                newest = (date, pid)
        if claims and ("rule" in node or "formula" in node or "symbol" in node):  # what names a claim
            for claim in _claims_named(node, claims):
                node["superseded_by"] = [_revision(r, snap) for r in claims[claim]["superseded_by"]]
                revised[claims[claim]["id"]] = {"claim": claims[claim]["id"], "label": claims[claim]["label"],
                                                "superseded_by": node["superseded_by"],
                                                **({"origin": claims[claim]["origin"]} if claims[claim].get("origin") else {})}
        _containers(node.values(), dicts, lists)  # after superseded_by is set: the revisions' sources count too
    answer["as_of"] = newest[0] if newest else None
    answer["as_of_source"] = newest[1] if newest else None
    if revised:
        answer["superseded"] = [revised[k] for k in sorted(revised)]
    return answer


def _containers(values, dicts: list, lists: list) -> None:
    """Add the dicts among ``values`` to ``dicts`` and the lists to ``lists``: by exact type
    for the types JSON holds (a third cheaper than ``isinstance`` on every value), by
    ``isinstance`` for any other (a subclass is still visited).

    >>> dicts, lists = [], []
    >>> _containers(["a", 1, None, {"b": 2}, [3], type("D", (dict,), {})()], dicts, lists)
    >>> dicts, lists
    ([{'b': 2}, {}], [[3]])
    """
    for v in values:
        t = type(v)
        if t in _LEAVES:  # most values: a name, a number, a text
            continue
        if t is dict:
            dicts.append(v)
        elif t is list:
            lists.append(v)
        elif isinstance(v, (dict, list)):
            (dicts if isinstance(v, dict) else lists).append(v)


def _no_dates(snap: dict) -> dict[str, str | None]:
    """The papers' dates, filled as answers first cite each (the same whoever fills it)."""
    return {}


def _revised(snap: dict) -> dict[str, dict]:
    """Every claim a newer source revises, by IRI and by id (constants are named by id), from
    the snapshot's small ``superseded`` table (so that stamping reads no claim shard)."""
    out = {}
    for iri, claim in snap.get("superseded", {}).items():
        out[iri] = claim
        out["id:" + claim["id"]] = claim
    return out


def _claims_named(node: dict, claims: dict) -> list[str]:
    keys = []
    if isinstance(node.get("rule"), str) and node["rule"] in claims:
        keys.append(node["rule"])
    formula = node.get("formula")
    if isinstance(formula, dict) and formula.get("iri") in claims:
        keys.append(formula["iri"])
    if "symbol" in node and ("id:" + str(node.get("id"))) in claims:
        keys.append("id:" + node["id"])
    return keys


def _revision(iri: str, snap: dict) -> dict:
    """The claim that revises: its id, label, text, sources and date."""
    from recipekg.reason.answers import sources_json

    claim = next((t[iri] for t in (snap["formulas"], snap["rules"], snap["constants"], snap["facts"]) if iri in t),
                 None)
    if claim is None:
        return {"iri": iri}
    sources = sources_json(claim, snap)
    dates = [d for d in (source_date(snap["papers"][s["id"]]) for s in sources) if d]
    return {"iri": iri, "id": claim["id"], "label": claim["label"], "text": claim.get("text"),
            "sources": sources, "as_of": max(dates) if dates else None,
            **({"origin": claim["origin"]} if claim.get("origin") else {})}
