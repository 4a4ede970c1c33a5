"""Answers as a notebook shows them: :class:`Answer` is the answer's dict (``answer["results"]``
and ``json.dumps(answer)`` work as on any dict) that Jupyter displays as HTML and that turns
into a pandas DataFrame, one row per result, quantity or rule.

    >>> answer, = kb.query("recommend fix where symptom = loss-spike top 2")
    >>> isinstance(answer, dict), answer["results"][0]["id"]
    (True, 'rollback-checkpoint')
    >>> "<table" in answer._repr_html_()
    True
    >>> [row["id"] for row in answer.rows()] == [r["id"] for r in answer["results"]]
    True
    >>> answer.rows()[0]["because"]  # a list of reasons becomes their rules' ids
    'palm-step-1-rollback, loss-spike-rollback'

:meth:`Answer.rows` flattens each row to plain values (a list of sources becomes their ids
joined by commas); :meth:`Answer.to_pandas` is those rows as a DataFrame and needs pandas
(``pip install 'recipekg[notebook]'``). This module imports nothing at load time: the HTML
comes from :mod:`recipekg.render.html` when a notebook asks for it.
"""

from __future__ import annotations

#: The list of an answer that makes its rows, by kind of statement.
ROWS = {"recommend": "results", "plan": "quantities", "explain": "rules"}


class Answer(dict):
    """One statement's answer: the spec's JSON object, displayed as HTML in Jupyter."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        from recipekg.render.html import answer_html

        return answer_html(self)

    def rows(self) -> list[dict]:
        """The answer's rows (``results``, ``quantities`` or ``rules``), each flattened to
        scalars: nested lists and objects are named by their ids or labels."""
        return [{key: flat(value) for key, value in row.items()} for row in self.get(ROWS.get(self.get("statement")), [])]

    def to_pandas(self):
        """The rows as a ``pandas.DataFrame``; a clear ImportError without pandas."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Answer.to_pandas() needs pandas: pip install 'recipekg[notebook]' "
                              "(or pip install pandas)") from None
        return pandas.DataFrame(self.rows())


class Answers(list):
    """The answers to the statements of one text, in order; displayed as each answer's HTML."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return "\n".join(a._repr_html_() for a in self)


def flat(value):
    """A value as one table cell: scalars stay, lists are joined, objects give their id.

    >>> flat([{"id": "a"}, {"id": "b", "role": "states"}]), flat({"label": "H100"}), flat(3.5)
    ('a, b', 'H100', 3.5)
    """
    if isinstance(value, dict):
        for key in ("id", "name", "label", "text", "condition"):
            if value.get(key) is not None:
                return value[key]
        return ", ".join(f"{k}={flat(v)}" for k, v in value.items() if v is not None)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(flat(v)) for v in value)
    return value
