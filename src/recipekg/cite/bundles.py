"""Citation bundles: the papers behind an answer, a choice, a rule or a paper, each once.

A :class:`Bundle` lists each paper once, in the order it is first cited, with what in the
bundle cites it; :mod:`recipekg.cite.formats` writes it out::

    >>> b = for_query(kb, "recommend architecture where data = tabular and rows = 30k", top=1)
    >>> "grinsztajn2022" in b.ids
    True
"""

from __future__ import annotations

from recipekg.errors import UsageError, VocabularyError, closest
from recipekg.record import Record


class Bundle(Record, frozen=False, slots=True):
    """Papers (snapshot paper dicts, each once), per paper id what cites it, and the caveats
    of the claims citing them (claim → its caveat, in the order first met).

    A mutable :class:`recipekg.record.Record` rather than a dataclass: importing
    :mod:`dataclasses` (and with it :mod:`inspect`) is a quarter of a cold ``recipekg cite --query``.

    >>> Bundle("t", papers=[{"id": "p"}], cited_by={"p": []})
    Bundle(title='t', papers=[{'id': 'p'}], cited_by={'p': []}, caveats={})
    """

    title: str
    papers: list[dict]
    cited_by: dict[str, list[str]]
    caveats: dict[str, str]

    def __init__(self, title: str, papers: list[dict] | None = None, cited_by: dict[str, list[str]] | None = None,
                 caveats: dict[str, str] | None = None) -> None:
        self.title = title
        self.papers = [] if papers is None else papers
        self.cited_by = {} if cited_by is None else cited_by
        self.caveats = {} if caveats is None else caveats

    def caveat(self, what: str, text: str | None) -> None:
        if text and what not in self.caveats:
            self.caveats[what] = text

    def add(self, pid: str, via: str, snap: dict) -> None:
        if pid not in self.cited_by:
            self.cited_by[pid] = []
            self.papers.append(snap["papers"][pid])
        if via and via not in self.cited_by[pid]:
            self.cited_by[pid].append(via)

    @property
    def ids(self) -> list[str]:
        return [p["id"] for p in self.papers]


# ---------------------------------------------------------------------- bundles

def for_query(kb, text: str, top: int | None = None) -> Bundle:
    """The papers behind the answers to ``text``: every source of every reason of every
    result (of the first ``top`` results, if given); for ``explain`` the rules' sources and
    the choice's original papers; for ``plan`` every quantity's sources."""
    answers = kb.query(text)
    return for_answers(answers, kb.snap, " ; ".join(a.get("query") or a["statement"] for a in answers), top)


def with_role(via: str, citation: dict | None) -> str:
    """What cites a paper and what the paper does for it: ``rule x (states: Table 3)``.

    >>> with_role("rule x", {"role": "states", "where": "Table 3"}), with_role("rule y", None)
    ('rule x (states: Table 3)', 'rule y')
    """
    if not citation or not citation.get("role"):
        return via
    where = f": {citation['where']}" if citation.get("where") else ""
    return f"{via} ({citation['role']}{where})"


def for_answers(answers: list[dict], snap: dict, title: str, top: int | None = None) -> Bundle:
    bundle = Bundle(f"papers behind: {title}")
    for a in answers:
        for via, sources, caveats in _answer_sources(a, top):
            for s in sources:
                pid = s["id"] if isinstance(s, dict) else s
                if pid in snap["papers"]:
                    bundle.add(pid, with_role(via, s if isinstance(s, dict) else None), snap)
            for what, text in caveats:
                bundle.caveat(what, text)
    return bundle


def _answer_sources(a: dict, top: int | None):
    """(what cites, its sources, its caveats as (what, text) pairs) for each cited thing."""
    for r in (a.get("results") or [])[:top]:
        for side in ("because", "against"):
            for x in r[side]:
                yield f"rule {x['id']}", x["sources"], [(f"rule {x['id']}", x.get("caveat"))]
    if a.get("choice"):
        yield f"choice {a['choice']['id']} (introduced in)", a["choice"].get("papers", []), []
    for x in a.get("rules") or []:
        yield f"rule {x['id']}", x["sources"], [(f"rule {x['id']}", x.get("caveat"))]
    for q in a.get("quantities") or []:
        yield (f"quantity {q.get('name')}", q.get("sources") or [],
               [(c["of"], c["text"]) for c in q.get("caveats") or []])
    for s in a.get("sections") or []:  # a recipe: its items (its plan's quantities come through "plan")
        for it in s["items"]:
            yield f"recipe {s['name']}: {it['what']}", it["sources"], []
    if a.get("statement") == "recipe" and a.get("plan"):
        yield from _answer_sources(a["plan"], top)


def for_choice(snap: dict, name: str, graph=None) -> Bundle:
    """The papers a choice rests on: original papers, its own sources, every claim naming
    it and the formulas using its constants (see :meth:`CiteGraph.rests_on`)."""
    from recipekg.cite.graph import CiteGraph

    graph = graph or CiteGraph(snap)
    iri = graph.resolve("choice", name)
    node = snap["nodes"][iri]
    bundle = Bundle(f"papers behind: {node['label']} ({node['id']})")
    claims = {(kind, c["id"]): c for kind, key in (("rule", "rules"), ("formula", "formulas"),
                                                  ("constant", "constants"), ("fact", "facts"))
              for c in snap[key].values()}
    for item in graph.rests_on(iri):
        for via in item["via"]:
            claim = claims.get((via["kind"], via["id"]), {})
            citation = (claim.get("citations") or {}).get(item["paper"])
            bundle.add(item["paper"], with_role(f"{via['kind']} {via['id']} ({', '.join(via['rels'])})", citation),
                       snap)
            bundle.caveat(f"{via['kind']} {via['id']}", claim.get("caveat"))
    return bundle


def for_rule(snap: dict, name: str) -> Bundle:
    by_id = {r["id"]: r for r in snap["rules"].values()}
    rule = by_id.get(name) or snap["rules"].get(name)
    if rule is None:
        raise VocabularyError(f"unknown rule '{name}'", expected=["a rule id of the KB"],
                              suggestions=closest(name, by_id))
    bundle = Bundle(f"papers behind rule {rule['id']}: {rule['label']}")
    for pid in rule["sources"]:
        bundle.add(pid, with_role(f"rule {rule['id']}", (rule.get("citations") or {}).get(pid)), snap)
    bundle.caveat(f"rule {rule['id']}", rule.get("caveat"))
    return bundle


def for_paper(snap: dict, pid: str) -> Bundle:
    if pid not in snap["papers"]:
        raise VocabularyError(f"unknown paper '{pid}'", expected=["a paper id of the bibliography (recipekg papers lists them)"],
                              suggestions=closest(pid, snap["papers"]))
    bundle = Bundle(f"paper {pid}")
    bundle.add(pid, "", snap)
    return bundle


def the_one(named: dict[str, tuple[str, str | None]]) -> tuple[str, str]:
    """Which of ``named`` (``{"query": (how the caller names it, value), "choice": ...,
    "rule": ..., "paper": ...}``) is given, and its value; :class:`UsageError` unless exactly
    one is, in the caller's names.

    >>> the_one({"query": ("--query", None), "paper": ("--paper", "kaplan2020")})
    ('paper', 'kaplan2020')
    >>> the_one({"query": ("statement", None), "paper": ("paper", None)})
    Traceback (most recent call last):
    recipekg.errors.UsageError: give exactly one of statement, paper
    """
    given = [(what, how, value) for what, (how, value) in named.items() if value is not None]
    if len(given) != 1:
        raise UsageError(f"give exactly one of {', '.join(how for how, _ in named.values())}"
                         + (f" (got {', '.join(how for _, how, _ in given)})" if given else ""))
    (what, _, value), = given
    return what, value


def bundle_of(kb, what: str, value: str, top: int | None = None) -> Bundle:
    """The bundle of a statement's answers (``what = "query"``), a choice, a rule or a paper."""
    if what == "query":
        return for_query(kb, value, top)
    return {"choice": for_choice, "rule": for_rule, "paper": for_paper}[what](kb.snap, value)
