"""``recipekg schema [NAME]``: the published JSON Schema (draft 2020-12) of the answers.

    $ recipekg schema                  # every answer, several answers, or the error object
    $ recipekg schema plan             # one statement's answer
    $ recipekg schema vocab -o vocab.schema.json

Every ``--format json`` answer, every ``/api/query`` answer and every MCP answer tool's result
validates against the schema without NAME; it is generated from the typed definitions the
answer builders are annotated with (:mod:`recipekg.contracts`).
"""

from __future__ import annotations

import click

from recipekg.cli.common import user_errors
from recipekg.contracts import DOCUMENTS


@click.command()
@click.argument("name", required=False, type=click.Choice(DOCUMENTS))
@click.option("-o", "--output", type=click.Path(readable=False), help="Write the schema to this file.")
@user_errors
def schema(name, output):
    """Print the JSON Schema (draft 2020-12) every JSON answer validates against; NAME: one
    statement's answer, the error object, the word list (vocab) or CSL-JSON (citations)."""
    import json

    from recipekg.contracts.documents import schema as document

    text = json.dumps(document(name), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    from pathlib import Path

    from recipekg.knowledge.export import write_atomic

    write_atomic(Path(output), text.encode("utf-8"))
