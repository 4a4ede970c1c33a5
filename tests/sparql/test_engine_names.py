"""The engines ``--engine`` offers are the ones ``sparql/engines.py`` has: the command line
restates them (it must not import the engines on the query path), so a test keeps them equal."""

from __future__ import annotations

import click

from recipekg.cli.main import main
from recipekg.sparql.engines import ENGINES


def test_the_engine_choices_are_the_engines():
    option = next(p for p in main.commands["query"].params if p.name == "engine")
    assert isinstance(option.type, click.Choice) and tuple(option.type.choices) == ENGINES
