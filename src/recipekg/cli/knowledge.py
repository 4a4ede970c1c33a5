"""``recipekg validate``, ``stats``, ``vocab`` and ``export``: the knowledge base itself.

    $ recipekg validate my-extension.ttl
    $ recipekg stats --format markdown
    $ recipekg vocab symptom
    $ recipekg export --format ntriples -o kb.nt
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from recipekg.render.formats import names
from recipekg.cli.common import echo, report_format_option, kb_option, load_kb, no_cache_option, user_errors


@click.command()
@click.argument("files", nargs=-1, type=click.Path(readable=False))
@click.option("--no-shacl", is_flag=True, help="Skip the SHACL shapes (structural checks only).")
def validate(files, no_shacl):
    """Validate the bundled KB merged with FILES; print `file:line: message`, exit 2 on any."""
    from recipekg.knowledge.resources import bundled_files, shapes_file
    from recipekg.knowledge.validate import validate as run

    from recipekg.errors import KBError
    from recipekg.knowledge.loader import check_extension_file

    paths = bundled_files() + [Path(f) for f in files]
    try:
        for f in files:  # as --kb checks them: a regular, readable file within the size cap
            check_extension_file(f)
    except KBError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    violations = run(paths, shapes=None if no_shacl else shapes_file())
    for v in violations:
        echo(str(v))
    checked = ", ".join(files) if files else "bundled KB"
    echo(f"{len(violations)} violation{'s' * (len(violations) != 1)} ({checked}, "
               f"{len(paths)} files)", err=bool(violations))
    sys.exit(2 if violations else 0)


@click.command()
@kb_option
@report_format_option
@no_cache_option
@user_errors
def stats(extensions, fmt, no_cache):
    """Counts per class, kind and section of the reference; sections with nothing encoded."""
    from recipekg.render.reports import render_stats

    echo(render_stats(load_kb(extensions, no_cache).stats(), fmt))


@click.command()
@click.argument("dimension", required=False)
@kb_option
@report_format_option
@no_cache_option
@user_errors
def vocab(dimension, extensions, fmt, no_cache):
    """Every dimension (spellings, unit, meaning, example), value and choice; or one DIMENSION's."""
    from recipekg.render.vocab import render_vocab

    echo(render_vocab(load_kb(extensions, no_cache).vocab(dimension), fmt))


@click.command()
@kb_option
@click.option("--format", "fmt", type=click.Choice(names("graph")),
              default="turtle", show_default=True)
@click.option("-o", "--output", type=click.Path(readable=False), help="Write to FILE (atomically).")
@user_errors
def export(extensions, fmt, output):
    """The merged ontology + KB (+ extensions) for any triple store."""
    from recipekg.knowledge.export import export_file, write_export

    kb = load_kb(extensions)
    if output:  # written as it is read, to a temporary file renamed at the end
        export_file(kb.files, fmt, Path(output), kb.snap["nodes"])
    else:
        write_export(kb.files, fmt, sys.stdout.buffer, kb.snap["nodes"])
