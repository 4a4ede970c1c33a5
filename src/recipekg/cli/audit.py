"""``recipekg audit``: the provenance report, for the bundled KB or an extension.

    $ recipekg audit                                   # the bundled KB
    $ recipekg audit --format markdown > docs/provenance.md
    $ recipekg audit my-extension.ttl --format json    # the extension's own claims and gaps

The report counts the links from claims to sources by role (states, supports, method,
reference), lists the claims resting on the reference's judgement alone and those no source
states, and the gaps an author should fix. It is a report, not a check: it exits 0 whatever
it finds (``recipekg validate`` is the check). Files are read without validation, so an
extension's gaps show even where validation would refuse the file.
"""

from __future__ import annotations

import click

from recipekg.cli.common import echo, report_format_option, user_errors


@click.command()
@click.argument("files", nargs=-1, type=click.Path(readable=False))
@report_format_option
@user_errors
def audit(files, fmt):
    """Provenance report: links by role, claims resting on the reference alone, gaps (of FILES' own claims)."""
    from recipekg.knowledge.provenance import audit_files
    from recipekg.render.reports import render_audit

    echo(render_audit(audit_files(files), fmt), nl=False)
