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

:meth:`Answer.rows` flattens each row to plain values (:func:`recipekg.render.html.flat`) (a list of sources becomes their ids
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
        from recipekg.render.html import flat

        return [{key: flat(value) for key, value in row.items()} for row in self.get(ROWS.get(self.get("statement")), [])]

    def to_pandas(self):
        """The rows as a ``pandas.DataFrame``; a clear ImportError without pandas."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Answer.to_pandas() needs pandas: pip install 'recipekg[notebook]' "
                              "(or pip install pandas)") from None
        return pandas.DataFrame(self.rows())


class Report(dict):
    """What a command other than a statement returns (``kb.stats()``, ``kb.vocab()``,
    ``kb.paper(id)``, ``kb.audit()``, ...): its ``--format json`` document as a dict, which a
    notebook shows as HTML (the command's text, and its lists as tables). ``kind`` names the
    command."""

    __slots__ = ("kind",)

    def __init__(self, data=(), kind: str = "report") -> None:
        super().__init__(data)
        self.kind = kind

    def _repr_html_(self) -> str:
        from recipekg.render.html import report_html

        return report_html(self, self.kind)


class Rows(list):
    """A command's list of rows (``kb.papers()``, ``kb.validate()``, ``kb.cite()`` as CSL-JSON):
    a list of dicts, shown in a notebook as one table; :meth:`to_pandas` as a DataFrame.

    >>> rows = kb.papers()
    >>> "<table" in rows._repr_html_() and rows[0]["id"] in rows._repr_html_()
    True
    """

    __slots__ = ("kind",)

    def __init__(self, rows=(), kind: str = "rows") -> None:
        super().__init__(rows)
        self.kind = kind

    def _repr_html_(self) -> str:
        from recipekg.render.html import rows_html

        return rows_html(self, self.kind)

    def to_pandas(self):
        """The rows, flattened (:func:`recipekg.render.html.flat`), as a ``pandas.DataFrame``."""
        return Answer({"statement": "recommend", "results": list(self)}).to_pandas()


class Answers(list):
    """The answers to the statements of one text, in order; displayed as each answer's HTML."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return "\n".join(a._repr_html_() for a in self)
