"""A local, read-only web page over the knowledge base (Flask, Jinja2 autoescaping).

    >>> app = create_app(recipekg.load())                           # doctest: +SKIP
    >>> app.test_client().get("/?q=recommend fix where symptom = loss-spike").status_code
    200

Pages: the query box (answers ranked by the same ``kb.query`` as the CLI, every reason
expandable to its rule text, section and papers, and a picture of the path from the
constraints through the rules to the choices), one page per entity, per claim (rule,
formula, constant, fact) and per paper (with backlinks from :mod:`recipekg.citegraph`), and
the list of papers. BibTeX comes with copy buttons.

Safety: every template is autoescaped and no KB text is marked safe; only http(s) URLs
become links (:func:`is_http_url`); the Content-Security-Policy allows this origin's
stylesheet and one inline script carrying a per-response nonce, nothing else.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from ..errors import RecipeKGError

MAX_QUERY = 10_000
EXAMPLES = (
    "recommend architecture where data = tabular and rows = 30k",
    "recommend architecture where data = images and images between 10k and 50k top 3",
    "recommend optimizer where prefer = low-memory",
    "recommend technique where hardware = dgx-spark",
    "recommend fix where symptom = loss-spike",
    "recommend approach where gpus = 1 and time < 1 day",
    "explain vit where data = images and samples = 3000",
)
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_http_url(url) -> bool:
    """Whether ``url`` may become a link: an absolute http(s) URL with a host, no spaces
    or control characters (``javascript:``, ``data:``, `` javascript:``, ``https:evil`` → no)."""
    if not isinstance(url, str) or not url or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def create_app(kb=None, *, extensions=(), trusted_hosts=None):
    """The Flask app over ``kb`` (default: the bundled KB merged with ``extensions``)."""
    from flask import Flask, g, render_template, request

    from .. import cite
    from ..citegraph import SNAP_KEYS, CiteGraph
    from ..errors import closest

    if kb is None:
        from ..kb import KnowledgeBase

        kb = KnowledgeBase.load(extensions)
    snap = kb.snap
    app = Flask(__name__)
    app.jinja_env.autoescape = True
    app.jinja_env.tests["http_url"] = is_http_url
    app.jinja_env.filters["short"] = _short
    if trusted_hosts:
        app.config["TRUSTED_HOSTS"] = list(trusted_hosts)
    graph = CiteGraph(snap)

    @app.before_request
    def nonce():
        g.csp_nonce = secrets.token_urlsafe(18)

    @app.after_request
    def headers(response):
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; "
            f"script-src 'nonce-{getattr(g, 'csp_nonce', '')}'; "
            "style-src 'self'; img-src 'self'; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    @app.context_processor
    def helpers():
        return {"paper_of": lambda pid: snap["papers"].get(pid), "choice_ids": graph.ids("choice"),
                "csp_nonce": getattr(g, "csp_nonce", "")}

    def not_found(what: str, name: str, candidates):
        return render_template("not_found.html", what=what, name=name,
                               suggestions=closest(name, candidates)), 404

    @app.get("/")
    def index():
        q = request.args.get("q", "").strip()
        answers, error = [], None
        if len(q) > MAX_QUERY:
            error = f"the query is too long ({len(q)} characters; at most {MAX_QUERY})"
        elif q:
            try:
                answers = kb.query(q)
                if not answers:
                    error = "nothing to answer: the query holds no statement"
            except RecipeKGError as exc:
                error = str(exc.with_source(q))
        views = [_answer_view(a, snap) for a in answers]
        for v in views:
            v["bibtex"] = cite.render(cite.for_answers([v["answer"]], snap, v["answer"].get("query", "")), "bibtex")
        return render_template("index.html", q=q, views=views, error=error, examples=EXAMPLES)

    @app.get("/papers")
    def papers():
        rows = [(snap["papers"][pid], claims, entities) for pid, claims, entities in graph.ranked_papers()]
        return render_template("papers.html", rows=rows)

    @app.get("/paper/<pid>")
    def paper(pid):
        if pid not in snap["papers"]:
            return not_found("paper", pid, snap["papers"])
        back = graph.backlinks(pid)
        return render_template("paper.html", p=back["paper"], back=back, reference=cite.reference(back["paper"]),
                               bibtex=cite.render(cite.for_paper(snap, pid), "bibtex"),
                               kind=_paper_kind(back["paper"]))

    @app.get("/entity/<name>")
    def entity(name):
        try:
            iri = graph.resolve("choice", name)
        except RecipeKGError:
            return not_found("entity", name, graph.ids("choice"))
        node = snap["nodes"][iri]
        naming = graph.claims_naming(iri)
        bundle = cite.for_choice(snap, name, graph)
        return render_template("entity.html", node=node, naming=naming, rests_on=graph.rests_on(iri),
                               bibtex=cite.render(bundle, "bibtex"),
                               broader=[snap["nodes"][b] for b in node["broader"] if b in snap["nodes"]])

    @app.get("/<any(rule, formula, constant, fact):kind>/<cid>")
    def claim(kind, cid):
        ids = graph.ids(kind)
        if cid not in ids:
            return not_found(kind, cid, ids)
        iri = ids[cid]
        c = snap[SNAP_KEYS[kind]][iri]
        return render_template("claim.html", kind=kind, c=c, iri=iri,
                               section=snap["sections"].get(c["section"], {}).get("path"),
                               choices=graph.choices_of(iri), **_claim_details(kind, iri, c, snap, graph))

    @app.errorhandler(404)
    def page_not_found(_):
        return render_template("not_found.html", what="page", name=request.path, suggestions=[]), 404

    @app.errorhandler(500)
    def internal_error(_):
        return render_template("not_found.html", what="answer", name=request.full_path.rstrip("?"), suggestions=[],
                               message="recipekg failed on this request: that is a bug, please report it."), 500

    @app.errorhandler(405)
    def read_only(_):
        return "This site is read-only.\n", 405, {"Content-Type": "text/plain; charset=utf-8"}

    return app


def _paper_kind(p: dict) -> str:
    from ..cite import entry_type, web_kind

    return web_kind(p) or {"inproceedings": "conference paper", "article": "journal article"}.get(
        entry_type(p), "preprint" if p.get("arxiv") else "paper")


def _short(text, n: int = 48) -> str:
    text = str(text or "")
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _claim_details(kind: str, iri: str, c: dict, snap: dict, graph) -> dict:
    """What a claim page shows beyond text, section, sources and choices."""
    out: dict = {"conditions": [], "strength": None, "disputes": [], "constants": [], "used_by": [], "procedure": None}
    if kind == "rule":
        out["conditions"] = [snap["conditions"][x]["label"] for x in c["conditions"] if x in snap["conditions"]]
        out["strength"] = (snap["strengths"].get(c["strength"]) or {}).get("label")
        out["disputes"] = [snap["rules"][x] for x in c["contradicts"] if x in snap["rules"]]
        if c.get("procedure"):
            out["procedure"] = {"label": (snap["procedures"].get(c["procedure"]) or {}).get("label"),
                                "step": int(c["step"]) if c.get("step") is not None else None}
    if kind == "formula":
        out["constants"] = [snap["constants"][x] for x in c["constants"] if x in snap["constants"]]
    if kind == "constant":
        out["used_by"] = [f for f in snap["formulas"].values() if iri in f["constants"]]
    return out


# ---------------------------------------------------------------------- answers

def _answer_view(a: dict, snap: dict) -> dict:
    """An answer plus what the page draws for it (constraint labels, the flow picture)."""
    constraints = [_constraint_label(c, snap) for c in a.get("constraints", [])]
    view = {"answer": a, "constraints": constraints, "flow": None}
    if a["statement"] == "recommend" and a["results"]:
        view["flow"] = flow(a["constraints"], constraints,
                            [(r["id"], r["label"], r["because"], r["against"]) for r in a["results"]])
    elif a["statement"] == "plan":
        view["quantities"] = [_quantity_view(q) for q in a["quantities"]]
        view["plan_text"] = _plan_text(a)
    elif a["statement"] == "explain":
        fired = [x for x in a["rules"] if x["fires"]]
        c = a["choice"]
        view["flow"] = flow(a["constraints"], constraints,
                            [(c["id"], c["label"], [x for x in fired if x["side"] == "for"],
                              [x for x in fired if x["side"] == "against"])])
    return view


def _quantity_view(q: dict) -> dict:
    """A plan quantity as the page shows it: readable value, the KB formula, the derivation."""
    from ..plan_render import _table_note, _value

    formula = q.get("formula") if isinstance(q.get("formula"), dict) else {}
    return {"name": q["name"], "value": _value(q), "table": _table_note(q).strip(" ()"),
            "formula_id": formula.get("id"), "expression": formula.get("expression"),
            "derivation": q.get("derivation"), "sources": q.get("sources") or [],
            "section": q.get("section")}


def _plan_text(a: dict) -> str:
    from ..plan_render import render_plan

    return render_plan(a, False)


def _constraint_label(c: dict, snap: dict) -> str:
    from ..explain import format_constraint

    try:
        text = format_constraint(c, snap)
    except (KeyError, TypeError, ValueError, IndexError):
        text = f"{c['dimension']} {c['op']} {c['value']}"
    return text + (f" (from {c['derived_from']})" if c.get("derived_from") else "")


def flow(constraints: list[dict], labels: list[str], choices: list[tuple], *, top: int = 5,
         per_choice: int = 3, max_rules: int = 12) -> dict:
    """Boxes and edges of the picture constraints → rules → choices, laid out in three
    columns (coordinates only; the template draws it as SVG)."""
    choices = choices[:top]
    rules: dict[str, dict] = {}
    for _, _, because, against in choices:
        for x in because[:per_choice] + against[:per_choice]:
            if len(rules) < max_rules:
                rules.setdefault(x["id"], x)
    row, pad = 46, 26
    cols = {"constraint": (10, 220), "rule": (290, 330), "choice": (700, 230)}
    n = max(len(constraints), len(rules), len(choices), 1)
    height = pad + 8 + n * row

    def boxes(kind: str, items: list[tuple[str, str, str]]):
        x, w = cols[kind]
        top_y = pad + (n - len(items)) * row / 2
        return [{"kind": kind, "key": key, "label": label, "title": title, "x": x, "y": top_y + i * row,
                 "w": w, "h": row - 12} for i, (key, label, title) in enumerate(items)]

    cbox = boxes("constraint", [(c["dimension"], lab.split(" (from ")[0], lab) for c, lab in zip(constraints, labels)])
    rbox = boxes("rule", [(x["id"], x["label"] or x["text"], x["text"] or "") for x in rules.values()])
    hbox = boxes("choice", [(cid, label, label) for cid, label, _, _ in choices])
    by_rule = {b["key"]: b for b in rbox}
    edges = []

    def edge(a: dict, b: dict, kind: str):
        x1, y1, x2, y2 = a["x"] + a["w"], a["y"] + a["h"] / 2, b["x"], b["y"] + b["h"] / 2
        mid = (x1 + x2) / 2
        edges.append({"kind": kind, "d": f"M{x1:.0f},{y1:.0f} C{mid:.0f},{y1:.0f} {mid:.0f},{y2:.0f} {x2:.0f},{y2:.0f}"})

    for cb, c in zip(cbox, constraints):  # a derived constraint (tier from gpus and time): a bracket
        for source in cbox:
            if source is not cb and c.get("derived_from") and source["key"] in c["derived_from"].split():
                x, y1, y2 = cb["x"] + cb["w"], source["y"] + source["h"] / 2, cb["y"] + cb["h"] / 2
                edges.append({"kind": "derived", "d": f"M{x:.0f},{y1:.0f} C{x + 40:.0f},{y1:.0f} {x + 40:.0f},{y2:.0f} {x:.0f},{y2:.0f}"})
    for cb in cbox:
        for rid, rb in by_rule.items():
            statuses = {c["status"] for c in rules[rid].get("conditions", []) if c["dimension"] == cb["key"]}
            if statuses & {"held", "partly"}:
                edge(cb, rb, "held" if "held" in statuses else "partly")
    for hb, (_, _, because, against) in zip(hbox, choices):
        for side, reasons in (("because", because), ("against", against)):
            for x in reasons[:per_choice]:
                if x["id"] in by_rule:
                    edge(by_rule[x["id"]], hb, side)
    return {"width": 940, "height": height, "boxes": cbox + rbox + hbox, "edges": edges}
