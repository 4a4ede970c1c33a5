"""``recipekg serve``: the read-only web page (:mod:`recipekg.web`), for one person or a team.

    $ recipekg serve                                   # http://127.0.0.1:8000/, waitress, 8 threads
    $ recipekg serve --host 0.0.0.0 --threads 16       # a team's server on the local network
    $ recipekg serve --server werkzeug                 # Flask's development server
    $ recipekg serve --cors https://notebook.example.org   # let that origin's pages call /api, /sparql

The knowledge base is loaded once, before the server starts, and every thread answers from
it; the answers to the query box are cached per query text (:mod:`recipekg.web.cache`).
"""

from __future__ import annotations

import re

import click

from recipekg.cli.common import echo, kb_option, load_kb, user_errors
from recipekg.errors import UsageError
from recipekg.limits import ANSWER_TIMEOUT_SECONDS, ANSWER_WORKERS, SPARQL_TIMEOUT_SECONDS


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (local only by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free port).")
@click.option("--server", "server_name", type=click.Choice(["waitress", "werkzeug"]), default="waitress",
              show_default=True, help="waitress: a production server with a fixed pool of threads; "
                                      "werkzeug: Flask's development server, a thread per request.")
@click.option("--threads", type=click.IntRange(1, 256), default=None,
              help="Worker threads of the waitress server  [default: 8].")
@click.option("--cors", "cors", multiple=True, metavar="ORIGIN",
              help="Let pages from ORIGIN (https://example.org, or *) call /api and /sparql; repeatable. "
                   "Off by default.")
@click.option("--sparql-timeout", type=click.FloatRange(0.1, 3600), default=SPARQL_TIMEOUT_SECONDS,
              show_default=True, help="Seconds a /sparql query may run before it is stopped.")
@click.option("--query-timeout", type=click.FloatRange(0.1, 3600), default=ANSWER_TIMEOUT_SECONDS,
              show_default=True, help="Seconds a query of /api/query or the pages may run before it is stopped.")
@kb_option
@user_errors
def serve(host, port, server_name, threads, cors, sparql_timeout, query_timeout, extensions):
    """A read-only web page: query box, reasons, papers and backlinks, BibTeX to copy."""
    from recipekg.web.answer_worker import frozen
    from recipekg.web.answering import warm
    from recipekg.web.app import LOOPBACK_HOSTS, create_app
    from recipekg.web.server import make_server

    if threads is not None and server_name != "waitress":
        raise UsageError("--threads is for --server waitress (werkzeug starts a thread per request)")
    for origin in cors:
        if origin != "*" and not re.fullmatch(r"https?://[^/\s]+", origin):
            raise UsageError(f"--cors takes an origin such as https://example.org (scheme and host, no path) "
                             f"or *, not {origin!r}")
    app = create_app(load_kb(extensions), trusted_hosts=LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None,
                     cors_origins=cors, sparql={"timeout": sparql_timeout},
                     answers={"timeout": query_timeout, "size": ANSWER_WORKERS})
    try:  # a busy port or an unknown address is our error (exit 2), whichever server runs
        server = make_server(app, host, port, server=server_name, threads=threads)
    except OSError as exc:  # (before any answer worker starts: none is left running)
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    frozen()  # the app and its KB live as long as the server: no collection scans them
    warm(app)  # the answer workers load the KB while the server starts
    shown = f"[{host}]" if ":" in host else host
    pool = f", {server.threads} threads" if server.threads else ""
    echo(f"recipekg: serving on http://{shown}:{server.port}/ ({server.name}{pool}; Ctrl-C to stop)", err=True)
    if host not in LOOPBACK_HOSTS:
        echo(f"recipekg: warning: listening on {host}, reachable from other machines", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        for pool in ("sparql", "answers"):  # stop the worker processes
            if app.extensions["recipekg"].get(pool) is not None:
                app.extensions["recipekg"][pool].close()
