"""The ``recipekg`` command line: a thin click layer over the library.

    $ recipekg query "recommend architecture where data = tabular and rows = 30k"
    $ recipekg validate my-extension.ttl
    $ recipekg stats
    $ recipekg audit --format markdown
    $ recipekg schema plan

Each command lives in the module of its group and is registered here, so no command module
imports this one.
"""

from __future__ import annotations

import click

from recipekg.cli import audit, cite, contracts, knowledge, mcp_server, query, serve, shell, sparql
from recipekg.version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="recipekg")
def main():
    """recipekg: choose architectures, optimizers, model sizes and fixes, with the papers behind them."""


for command in (query.query, query.explain, query.plan, query.recipe, knowledge.validate, knowledge.stats, knowledge.vocab,
                knowledge.export,
                cite.cite, cite.papers, cite.paper, audit.audit, sparql.sparql, sparql.load, serve.serve,
                mcp_server.mcp, shell.shell, contracts.schema):
    main.add_command(command)
