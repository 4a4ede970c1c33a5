"""``recipekg cite``, ``papers`` and ``paper``: the citations, both ways.

    $ recipekg cite --query "recommend architecture where data = tabular and rows = 30k" --format bibtex
    $ recipekg cite --choice lightgbm --format csl-json -o lightgbm.json
    $ recipekg papers
    $ recipekg paper grinsztajn2022
"""

from __future__ import annotations

import sys

import click

from recipekg.cite.formats import FORMATS as CITE_FORMATS
from recipekg.cli.completion import complete_choice, complete_paper, complete_rule, complete_statement
from recipekg.cli.common import echo, report_format_option, kb_option, load_kb, user_errors
from recipekg.cli.respond import respond_cite


@click.command()
@click.option("-q", "--query", "statement", metavar="STATEMENT", shell_complete=complete_statement, help="The papers behind this query's answer.")
@click.option("--choice", metavar="ID", shell_complete=complete_choice, help="The papers a choice rests on (e.g. lightgbm, \"8-bit Adam\").")
@click.option("--rule", metavar="ID", shell_complete=complete_rule, help="The papers behind one rule.")
@click.option("--paper", metavar="ID", shell_complete=complete_paper, help="One paper of the bibliography.")
@click.option("--top", type=click.IntRange(min=1), help="With --query: only the first N results of each answer.")
@click.option("--format", "fmt", type=click.Choice(CITE_FORMATS), default="text", show_default=True,
              help="Citation format.")
@click.option("-o", "--output", type=click.Path(readable=False), help="Write to FILE (atomically).")
@kb_option
def cite(statement, choice, rule, paper, top, fmt, output, extensions):
    """The papers behind a query's answer, a choice, a rule or a paper, each paper once."""
    out, to_stderr, status = respond_cite(fmt, extensions, statement=statement, choice=choice, rule=rule,
                                          paper=paper, top=top, output=output)
    if out is not None:
        echo(out, err=to_stderr)
    sys.exit(status)


@click.command()
@kb_option
@report_format_option
@user_errors
def papers(extensions, fmt):
    """Every paper with the number of claims (rules, formulas, constants, facts) citing it,
    whatever the citation's role, and how many cite it in each role."""
    from recipekg.render.reports import render_papers

    echo(render_papers(load_kb(extensions).papers(), fmt))


@click.command()
@click.argument("paper_id", metavar="ID", shell_complete=complete_paper)
@kb_option
@report_format_option
@user_errors
def paper(paper_id, extensions, fmt):
    """Every rule, formula, constant and fact citing paper ID (with what the paper does for
    each), and the choices they lead to."""
    from recipekg.cite.formats import reference
    from recipekg.render.reports import render_paper

    back = load_kb(extensions).paper(paper_id)
    echo(render_paper(back, reference(back["paper"]), fmt))
