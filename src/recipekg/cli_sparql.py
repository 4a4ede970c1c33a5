"""``recipekg sparql`` and ``recipekg load``; ``recipekg query --engine/--endpoint`` lands here.

    $ recipekg sparql "recommend architecture where data = tabular and rows = 30k" > q.rq
    $ recipekg query --engine oxigraph "recommend fix where symptom = loss-spike"
    $ recipekg load --endpoint http://localhost:8890/sparql-auth --graph https://w3id.org/recipekg/ \
          --user dba --password dba --replace
    $ recipekg query --endpoint http://localhost:8890/sparql "recommend optimizer where prefer = low-memory"

Querying an endpoint reads, from the environment: ``RECIPEKG_SPARQL_USER`` and
``RECIPEKG_SPARQL_PASSWORD`` (HTTP Basic or Digest, whichever the server asks for),
``RECIPEKG_SPARQL_TIMEOUT`` (seconds, default 60) and ``RECIPEKG_SPARQL_POST`` (``form``, the
default, or ``direct`` for an ``application/sparql-query`` body).
"""

from __future__ import annotations

import os

import click

from .cli import _load, _statement_text, kb_option, main, no_cache_option, user_errors
from .errors import RecipeKGError


def endpoint_options() -> dict:
    """Options for :class:`recipekg.engines.EndpointEngine` from the environment."""
    options: dict = {}
    if user := os.environ.get("RECIPEKG_SPARQL_USER"):
        options["user"] = user
        options["password"] = os.environ.get("RECIPEKG_SPARQL_PASSWORD", "")
    if timeout := os.environ.get("RECIPEKG_SPARQL_TIMEOUT"):
        try:
            options["timeout"] = float(timeout)
        except ValueError:
            raise RecipeKGError(f"RECIPEKG_SPARQL_TIMEOUT is not a number of seconds: {timeout!r}",
                                kind="usage") from None
        if not options["timeout"] > 0:
            raise RecipeKGError("RECIPEKG_SPARQL_TIMEOUT must be positive", kind="usage")
    if method := os.environ.get("RECIPEKG_SPARQL_POST"):
        if method not in ("form", "direct"):
            raise RecipeKGError(f"RECIPEKG_SPARQL_POST is 'form' or 'direct', not {method!r}", kind="usage")
        options["method"] = method
    return options


def engine_answers(kb, text: str, engine: str, endpoint: str | None) -> list[dict]:
    """Every statement of ``text`` answered through ``engine`` or ``endpoint`` (all parsed first)."""
    from . import engines
    from .parser import parse

    statements = parse(text)
    if not statements:
        return []
    eng = engines.get_engine(engine, kb.files, endpoint, **(endpoint_options() if endpoint else {}))
    return [engines.answer(statement, kb.snap, eng) for statement in statements]


@main.command()
@click.argument("statement", required=False)
@click.option("-f", "--file", "path", type=click.Path(dir_okay=False, allow_dash=True),
              help="Read the statement from FILE ('-' for stdin).")
@kb_option
@no_cache_option
@user_errors
def sparql(statement, path, extensions, no_cache):
    """Print the SPARQL 1.1 query answering STATEMENT (recommend or explain) over `recipekg export`.

    One row per rule that applies, with its choice, side, strength, condition statuses and
    sources; `recipekg query --engine/--endpoint` ranks the rows exactly as the reasoner does.
    """
    from .parser import parse
    from .sparql import to_sparql

    text, source = _statement_text(statement, path)
    kb = _load(extensions, no_cache)
    try:
        statements = parse(text)
        if len(statements) != 1:
            raise RecipeKGError(f"recipekg sparql takes one statement, not {len(statements)}: a SPARQL "
                                f"request holds one query", kind="usage", file=source,
                                expected=["recommend <kind> where ...", "explain <choice> where ..."])
        query = to_sparql(statements[0], kb.snap)
    except RecipeKGError as exc:
        raise exc.with_source(text, source)
    click.echo(query, nl=False)


@main.command()
@click.option("--endpoint", required=True, metavar="URL",
              help="SPARQL 1.1 Update endpoint (Virtuoso: http://host:8890/sparql-auth) or, with "
                   "--protocol graph-store, the Graph Store endpoint.")
@click.option("--graph", metavar="IRI", help="Named graph to load into (Virtuoso needs one).")
@click.option("--user", envvar="RECIPEKG_SPARQL_USER", help="User for HTTP Basic/Digest auth.")
@click.option("--password", envvar="RECIPEKG_SPARQL_PASSWORD",
              help="Password (asked for when --user is given without it).")
@click.option("--protocol", type=click.Choice(("update", "graph-store")), default="update", show_default=True,
              help="SPARQL UPDATE INSERT DATA in chunks, or one Graph Store protocol request.")
@click.option("--replace", is_flag=True, help="Drop the graph first (update) or PUT instead of POST (graph-store).")
@click.option("--chunk", type=click.IntRange(min=1), default=500, show_default=True,
              help="Triples per INSERT DATA request.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300.0, show_default=True,
              help="Seconds to wait for each request.")
@kb_option
@user_errors
def load(endpoint, graph, user, password, protocol, replace, chunk, timeout, extensions):
    """Put `recipekg export` (bundled KB plus --kb extensions) into a SPARQL server."""
    from .engines import load_endpoint

    if user and password is None:
        password = click.prompt(f"password for {user}", hide_input=True, err=True)
    kb = _load(extensions)
    count = load_endpoint(endpoint, kb.files, graph=graph, user=user, password=password,
                          protocol=protocol, replace=replace, chunk=chunk, timeout=timeout)
    click.echo(f"loaded {count} triples into {f'<{graph}>' if graph else 'the default graph'} "
               f"at {endpoint}", err=True)
