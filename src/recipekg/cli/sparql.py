"""``recipekg sparql`` and ``recipekg load``; ``recipekg query --engine/--endpoint`` answers
through :func:`recipekg.cli.respond.sparql_backend`.

    $ recipekg sparql "recommend architecture where data = tabular and rows = 30k" > q.rq
    $ recipekg load --endpoint http://localhost:8890/sparql-auth --graph https://w3id.org/recipekg/ \
          --user dba --password dba --replace

Querying an endpoint reads, from the environment: ``RECIPEKG_SPARQL_USER`` and
``RECIPEKG_SPARQL_PASSWORD`` (HTTP Basic or Digest, whichever the server asks for),
``RECIPEKG_SPARQL_TIMEOUT`` (seconds, default 60) and ``RECIPEKG_SPARQL_POST`` (``form``, the
default, or ``direct`` for an ``application/sparql-query`` body).
"""

from __future__ import annotations

import click

from recipekg.cli.completion import complete_statement
from recipekg.cli.common import echo, kb_option, load_kb, no_cache_option, statement_text, user_errors


@click.command()
@click.argument("statement", required=False, shell_complete=complete_statement)
@click.option("-f", "--file", "path", type=click.Path(readable=False, allow_dash=True),
              help="Read the statement from FILE ('-' for stdin).")
@kb_option
@no_cache_option
@user_errors
def sparql(statement, path, extensions, no_cache):
    """Print the SPARQL 1.1 query answering STATEMENT (recommend or explain) over `recipekg export`.

    One row per rule that applies, with its choice, side, strength, condition statuses and
    sources; `recipekg query --engine/--endpoint` ranks the rows exactly as the reasoner does.
    """
    text, source = statement_text(statement, path)
    echo(load_kb(extensions, no_cache).to_sparql(text, source=source), nl=False)


@click.command()
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
    if user and password is None:
        password = click.prompt(f"password for {user}", hide_input=True, err=True)
    count = load_kb(extensions).load_into(endpoint, graph, user=user, password=password, protocol=protocol,
                                          replace=replace, chunk=chunk, timeout=timeout)["triples"]
    echo(f"loaded {count} triples into {f'<{graph}>' if graph else 'the default graph'} "
               f"at {endpoint}", err=True)
