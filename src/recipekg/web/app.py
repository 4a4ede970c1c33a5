"""A local, read-only web page over the knowledge base (Flask, Jinja2 autoescaping).

    >>> app = create_app(kb)
    >>> app.test_client().get("/?q=recommend fix where symptom = loss-spike").status_code
    200

Pages (:mod:`recipekg.web.views`): the query box (answers ranked by the same ``kb.query`` as
the CLI, every reason expandable to its rule text, section and papers, and a picture of the
path from the constraints through the rules to the choices), one page per entity, per claim
(rule, formula, constant, fact) and per paper (with backlinks from
:mod:`recipekg.cite.graph`), and the list of papers. BibTeX comes with copy buttons.

Safety: every template is autoescaped and no KB text is marked safe; only http(s) URLs
become links (:func:`is_http_url`); the Content-Security-Policy allows this origin's
stylesheet and one inline script carrying a per-response nonce, nothing else. Served on a
loopback address, a request for any other Host is refused (DNS rebinding); the Server
header names neither the server nor Python's version.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from recipekg.web.headers import host_name, new_nonce, security_headers

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_http_url(url) -> bool:
    """Whether ``url`` may become a link: an absolute http(s) URL with a host, no spaces
    or control characters (``javascript:``, ``data:``, `` javascript:``, ``https:evil`` → no).

    >>> is_http_url("https://arxiv.org/abs/2207.08815"), is_http_url("javascript:alert(1)")
    (True, False)
    """
    if not isinstance(url, str) or not url or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def environment_class():
    """Flask's template environment, with attribute look-ups on plain dicts (the answers'
    JSON, every ``a.results`` or ``x.text`` of a page) made directly: Jinja tries
    ``getattr`` first and reaches the key through an exception, a page's thousands of times.
    The result is the same: a dict's own attributes (``items``, ``get``) still win, and a
    missing key is undefined.

    >>> env = environment_class()(create_app(kb))
    >>> env.getattr({"text": "t"}, "text"), env.getattr({"items": 1}, "items").__name__
    ('t', 'items')
    >>> bool(env.getattr({}, "missing"))
    False
    """
    from flask.templating import Environment

    own = frozenset(dir(dict))

    class DictEnvironment(Environment):
        def getattr(self, obj, attribute):
            if type(obj) is dict and attribute not in own:
                try:
                    return obj[attribute]
                except KeyError:
                    return self.undefined(obj=obj, name=attribute)
            return super().getattr(obj, attribute)

    return DictEnvironment


#: How many links :func:`remembered_url_for` keeps (a page has about 40; most are to papers).
LINKS_KEPT = 8192


def remembered_url_for(app):
    """``url_for`` for ``app``'s templates, each link built once per script root (werkzeug
    builds a URL in about 10 microseconds, and an answer page has dozens, most of them the
    same papers'); arguments that are not hashable go to ``url_for`` itself."""
    from functools import lru_cache

    from flask import request

    @lru_cache(maxsize=LINKS_KEPT)
    def built(root, endpoint, values):
        return app.url_for(endpoint, **dict(values))

    def url_for(endpoint, **values):
        try:
            return built(request.script_root, endpoint, tuple(sorted(values.items())))
        except TypeError:  # an unhashable argument
            return app.url_for(endpoint, **values)
    return url_for


def implied_notes(constraints: list) -> list[str]:
    """The notes the text renderer writes where a constraint implies another value of one given
    (:func:`recipekg.render.constraints.implied_lines`), without their "note: ": the page's."""
    from recipekg.render.constraints import implied_lines

    return [line.removeprefix("note: ") for line in implied_lines(constraints)]


def create_app(kb=None, *, extensions=(), trusted_hosts=None, page_cache=None, cors_origins=(), sparql=None,
               answers=None):
    """The Flask app over ``kb`` (default: the bundled KB merged with ``extensions``), loaded
    once: every request and thread answers from it. ``page_cache``: the answer pages' cache
    (default: a :class:`~recipekg.web.cache.PageCache` of the default size). The JSON API
    (:mod:`recipekg.web.api`) answers cross-origin requests from ``cors_origins`` only;
    ``sparql``: the ``/sparql`` endpoint's limits (:func:`recipekg.web.sparql_endpoint.register`);
    ``answers``: ``{"timeout", "size"}`` to answer queries in worker processes with that time
    limit (:mod:`recipekg.web.answering`; ``recipekg serve`` does), else in the request's thread."""
    from flask import Flask, g, render_template, request

    from recipekg.errors import INTERNAL_ERROR
    from recipekg.cite.graph import CiteGraph
    from recipekg.web import api, fragments, sparql_endpoint, views
    from recipekg.web.front import answer_pages_first
    from recipekg.web.cache import PageCache
    from recipekg.render.numbers import value as number_text
    from recipekg.render.recommend import advisers
    from recipekg.render.sources import role_text
    from recipekg.web.flow import human
    from recipekg.web.present import sentence, short

    if kb is None:
        from recipekg.api import KnowledgeBase

        kb = KnowledgeBase.load(extensions)
    app = Flask("recipekg.web")
    app.jinja_environment = environment_class()
    app.jinja_env.autoescape = True
    app.jinja_env.tests["http_url"] = is_http_url
    app.jinja_env.filters["short"] = short
    app.jinja_env.filters["sentence"] = sentence
    app.jinja_env.filters["human"] = human
    app.jinja_env.filters["role"] = role_text
    app.jinja_env.filters["number"] = number_text
    app.jinja_env.filters["implied_notes"] = implied_notes
    app.jinja_env.filters["advisers"] = advisers
    app.jinja_env.globals["url_for"] = remembered_url_for(app)
    trusted = {host_name(h) for h in trusted_hosts or ()}
    graph = CiteGraph(kb.snap)
    pages = page_cache if page_cache is not None else PageCache()
    app.extensions["recipekg"] = {"kb": kb, "graph": graph, "pages": pages, "answers_settings": answers}
    paper_of = fragments.register(app, kb.snap["papers"], graph.ids("choice")).paper_of

    @app.before_request
    def nonce():
        g.csp_nonce = new_nonce()
        if trusted and host_name(request.headers.get("Host", "")) not in trusted:
            return "Bad Request: unknown host", 400  # DNS rebinding; werkzeug's check misses [::1]

    @app.after_request
    def headers(response):
        for name, value in security_headers(getattr(g, "csp_nonce", "")):
            response.headers[name] = value
        return response

    @app.context_processor
    def helpers():
        return {"paper_of": paper_of, "choice_ids": graph.ids("choice"),
                "csp_nonce": getattr(g, "csp_nonce", "")}

    @app.errorhandler(404)
    def page_not_found(_):
        return render_template("not_found.html", what="page", name=request.path, suggestions=[]), 404

    @app.errorhandler(500)
    def internal_error(_):
        return render_template("not_found.html", what="answer", name=request.full_path.rstrip("?"), suggestions=[],
                               message=f"recipekg: {INTERNAL_ERROR} (this request failed on our side)."), 500

    @app.errorhandler(405)
    def read_only(_):
        return "This site is read-only.\n", 405, {"Content-Type": "text/plain; charset=utf-8"}

    views.register(app)
    api.register(app, cors_origins=cors_origins)
    sparql_endpoint.register(app, **(sparql or {}))
    app.wsgi_app = answer_pages_first(app, app.wsgi_app, trusted)  # type: ignore[method-assign]
    return app
