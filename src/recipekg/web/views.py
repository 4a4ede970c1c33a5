"""The pages: the query box with its answers, papers, a paper, an entity, a claim, the
decision-tree map, the word list.

Each view reads the app's knowledge base from ``current_app.extensions["recipekg"]``
(:func:`recipekg.web.app.create_app` puts it there) and renders a template; nothing here
builds the app.

    >>> from recipekg.web.app import create_app
    >>> page = create_app(kb).test_client().get("/paper/hoffmann2022")
    >>> page.status_code, b"Training Compute-Optimal" in page.data
    (200, True)
"""

from __future__ import annotations

from flask import current_app, g, render_template, request
from markupsafe import Markup

from recipekg.cite import bundles
from recipekg.cite.bibtex import bibtex_entry, render_bibtex
from recipekg.cite.formats import reference
from recipekg.cite.graph import SNAP_KEYS
from recipekg.errors import RecipeKGError, closest
from recipekg.limits import MAX_WEB_QUERY_CHARS
from recipekg.render.errors import error_text
from recipekg.web.answering import FAILURE, app_pool, page_text
from recipekg.web.present import answer_view, claim_details, error_view, paper_kind
from recipekg.web.treemap import decision_tree

#: The front page's examples, one group per kind of statement: what each asks, and the queries.
EXAMPLE_GROUPS = (
    ("recommend", "a ranked choice, with the rules and papers behind it", (
        "recommend architecture where data = tabular and rows = 30k",
        "recommend architecture where data = images and images between 10k and 50k top 3",
        "recommend architecture where data = time-series and samples = 5k",
        "recommend optimizer where prefer = low-memory",
        "recommend technique where hardware = dgx-spark",
        "recommend fix where symptom = loss-spike",
        "recommend approach where gpus = 1 and time < 1 day")),
    ("explain", "why a choice ranks where it does, and what would rank it first", (
        "explain vit where data = images and samples = 3000",
        "explain lightgbm where data = tabular and rows = 5k")),
    ("plan", "whether a training run fits, how long it takes, what to change", (
        "plan where params = 7B and hardware = h100 and gpus = 8",
        "plan where params = 70B and hardware = a100 and gpus = 2",
        "plan where flops = 1e21 and hardware = a100 and gpus = 64")),
    ("recipe", "the whole training recipe, every line sourced or said to be unsourced, and its configuration", (
        "recipe where data = text and task = generation and method = pretrain and params = 7B and hardware = h100 and gpus = 64",
        "recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1",
        "recipe where data = tabular and rows = 30k")),
)
EXAMPLES = tuple(q for _, _, queries in EXAMPLE_GROUPS for q in queries)


def _state() -> dict:
    return current_app.extensions["recipekg"]


def not_found(what: str, name: str, candidates):
    return render_template("not_found.html", what=what, name=name,
                           suggestions=closest(name, candidates)), 404


def index():
    """The query box and, for ``?q=``, the answers: from the app's page cache
    (:mod:`recipekg.web.cache`) when this text was asked before under this root (the page's
    links are under it), else rendered by an answer
    worker (:mod:`recipekg.web.answering`) or, without a pool, here."""
    q = request.args.get("q", "").strip()
    if len(q) > MAX_WEB_QUERY_CHARS:  # not worth a cache entry
        return answer_page(q)
    return _state()["pages"].page((request.script_root, q), getattr(g, "csp_nonce", ""),
                                  lambda placeholder: page_of(q, placeholder),
                                  keep=lambda: not getattr(g, "answer_limited", False))


def page_of(q: str, nonce: str) -> str | bytes:
    """The page answering ``q``: from the app's answer pool when it has one (the UTF-8 bytes
    it wrote; a failure of the worker, such as the time limit, shown on a page rendered here,
    also when :mod:`recipekg.web.front` met it first), else :func:`answer_page`."""
    failure = request.environ.get(FAILURE)
    if failure is not None:
        return answer_page(q, nonce, failure=failure)
    pool = app_pool() if q else None
    if pool is None:
        return answer_page(q, nonce)
    try:
        text, keep = page_text(pool, q, nonce, request.script_root)
    except RecipeKGError as exc:
        return answer_page(q, nonce, failure=exc)
    g.answer_limited = not keep
    return text


def answer_page(q: str, nonce: str | None = None, failure: RecipeKGError | None = None) -> str:
    """The front page answering ``q`` (or showing ``failure``, an answer that could not be
    had), its script carrying ``nonce`` (default: the request's)."""
    kb, snap = _state()["kb"], _state()["kb"].snap
    answers, error, error_parts = [], None, None
    try:
        if len(q) > MAX_WEB_QUERY_CHARS:
            error = f"the query is too long ({len(q)} characters; at most {MAX_WEB_QUERY_CHARS})"
        elif failure is not None:
            raise failure
        elif q:
            answers = kb.query(q)
    except RecipeKGError as exc:
        error = error_text(exc)
        g.answer_limited = exc.kind in ("limit", "internal")
        error_parts = error_view(exc, q)
    views = [answer_view(a) for a in answers]
    for v in views:
        v["bibtex"] = bibtex(bundles.for_answers([v["answer"]], snap, v["answer"].get("query", "")))
    extra = {} if nonce is None else {"csp_nonce": nonce}
    return render_template("index.html", q=q, views=views, error=error, error_parts=error_parts,
                           example_groups=EXAMPLE_GROUPS, vocab_panel=vocab_panel() if not q else vocab_stub(),
                           **extra)


def vocab_panel() -> Markup:
    """The side panel of the words (``_vocab_panel.html`` over ``kb.vocab()``), the same on
    every page of this app's KB: rendered (autoescaped) once, then reused."""
    state = _state()
    if state.get("vocab_panel") is None:
        state["vocab_panel"] = Markup(render_template("_vocab_panel.html", vocab=state["kb"].vocab()))
    return state["vocab_panel"]


def vocab_stub() -> Markup:
    """The side panel on an answer page: its heading and a link to ``/vocab``, which the
    page's script replaces by the whole panel (``/vocab/panel``, kept by the browser). The
    panel is about 60 KB, three quarters of an answer page, the same on every one: sent with
    each, it cost the server a tenth of a distinct page's time (docs/performance.md)."""
    stubs = _state().setdefault("vocab_stubs", {})  # by the pages' root: the links are under it
    stub = stubs.get(request.script_root)
    if stub is None:
        stub = Markup(render_template("_vocab_stub.html"))
        if len(stubs) < 16:  # a server has one root, or a few behind proxies
            stubs[request.script_root] = stub
    return stub


def vocab_page():
    """``GET /vocab``: the word list as a page of its own (the answer pages link to it)."""
    return render_template("vocab.html", vocab_panel=vocab_panel())


def vocab_panel_fragment():
    """``GET /vocab/panel``: the side panel's HTML alone, for an answer page's script to put in
    place of its stub; an ETag (the panel's digest) lets the browser keep it (304)."""
    state = _state()
    if state.get("vocab_panel_bytes") is None:
        import hashlib

        body = str(vocab_panel()).encode("utf-8")
        state["vocab_panel_bytes"] = body, hashlib.sha256(body).hexdigest()[:32]
    body, etag = state["vocab_panel_bytes"]
    response = current_app.response_class(body, mimetype="text/html")
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"  # kept, but asked again: a restarted server may hold another KB
    return response.make_conditional(request)


def bibtex(bundle) -> str:
    """The BibTeX of ``bundle``, each paper's entry written once per app (a paper's entry
    depends on the paper and its key only: :func:`recipekg.cite.bibtex.render_bibtex`)."""
    entries = _state().setdefault("bibtex_entries", {})

    def entry(p: dict, key: str) -> str:
        text = entries.get((p["id"], key))
        if text is None:
            text = entries[(p["id"], key)] = bibtex_entry(p, key)
        return text

    return render_bibtex(bundle, entry)


def api_vocab():
    """``GET /api/vocab``: the document of ``recipekg vocab --format json``, byte for byte;
    ``?dimension=NAME`` for one dimension (404 with the error's JSON for an unknown one). The
    query box's completion asks for it on every page a browser loads; it is the same for the
    app's KB, so each document is written once (an unknown name's error is not kept)."""
    name = request.args.get("dimension") or None
    kept = _state().setdefault("vocab_documents", {})
    body = kept.get(name)
    status = 200
    if body is None:
        body, status = _vocab_document(name)
        if status == 200:
            kept[name] = body = body.encode("utf-8")
    return current_app.response_class(body, status=status, mimetype="application/json")


def _vocab_document(name: str | None) -> tuple[str, int]:
    from recipekg.render.vocab import render_vocab

    try:
        return render_vocab(_state()["kb"].vocab(name), "json") + "\n", 200
    except RecipeKGError as exc:
        import json

        return json.dumps({"error": exc.to_dict()}, indent=2) + "\n", 404


def papers():
    snap, graph = _state()["kb"].snap, _state()["graph"]
    rows = [(snap["papers"][pid], claims, entities, graph.role_counts(pid))
            for pid, claims, entities in graph.ranked_papers()]
    return render_template("papers.html", rows=rows)


def paper(pid):
    snap, graph = _state()["kb"].snap, _state()["graph"]
    if pid not in snap["papers"]:
        return not_found("paper", pid, snap["papers"])
    back = graph.backlinks(pid)
    return render_template("paper.html", p=back["paper"], back=back, reference=reference(back["paper"]),
                           bibtex=bibtex(bundles.for_paper(snap, pid)), kind=paper_kind(back["paper"]))


def entity(name):
    snap, graph = _state()["kb"].snap, _state()["graph"]
    try:
        iri = graph.resolve("choice", name)
    except RecipeKGError:
        return not_found("entity", name, graph.ids("choice"))
    node = snap["nodes"][iri]
    return render_template("entity.html", node=node, naming=graph.claims_naming(iri), rests_on=graph.rests_on(iri),
                           bibtex=bibtex(bundles.for_choice(snap, name, graph)),
                           broader=[snap["nodes"][b] for b in node["broader"] if b in snap["nodes"]])


def claim(kind, cid):
    snap, graph = _state()["kb"].snap, _state()["graph"]
    ids = graph.ids(kind)
    if cid not in ids:
        return not_found(kind, cid, ids)
    iri = ids[cid]
    c = snap[SNAP_KEYS[kind]][iri]
    return render_template("claim.html", kind=kind, c=c, iri=iri,
                           section=snap["sections"].get(c["section"], {}).get("path"),
                           choices=graph.choices_of(iri), **claim_details(kind, iri, c, snap))


def tree_map():
    """The decision tree: data type → rules → choices (:mod:`recipekg.web.treemap`)."""
    return render_template("map.html", tree=decision_tree(_state()["kb"].snap))


def register(app) -> None:
    """Add every page to ``app`` under the endpoint names the templates link to."""
    app.add_url_rule("/", "index", index)
    app.add_url_rule("/papers", "papers", papers)
    app.add_url_rule("/map", "tree_map", tree_map)
    app.add_url_rule("/api/vocab", "api_vocab", api_vocab)
    app.add_url_rule("/vocab", "vocab_page", vocab_page)
    app.add_url_rule("/vocab/panel", "vocab_panel", vocab_panel_fragment)
    app.add_url_rule("/paper/<pid>", "paper", paper)
    app.add_url_rule("/entity/<name>", "entity", entity)
    app.add_url_rule("/<any(rule, formula, constant, fact):kind>/<cid>", "claim", claim)
