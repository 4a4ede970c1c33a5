"""Closing an app's answer workers at the end of a test module."""

from __future__ import annotations


def close_answers(app) -> None:
    """Close ``app``'s answer workers if a request made them: they are made on first use, so a
    test process given only requests that Flask answers alone has none to close."""
    answers = app.extensions["recipekg"].get("answers")
    if answers is not None:
        answers.close()
