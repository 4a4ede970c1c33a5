"""An answer as an HTML fragment, for notebooks (:class:`recipekg.notebook.Answer`): the query,
its constraints, a table of the rows (results, quantities or rules) and, folded, the text
rendering the command line prints. A command's report (:class:`recipekg.notebook.Report`) is
its text and the tables of its lists; its rows (:class:`recipekg.notebook.Rows`) one table.
Every KB or user text is escaped; only http(s) URLs become links.

    >>> page = answer_html(kb.query("recommend fix where symptom = loss-spike top 1")[0])
    >>> "<th>choice</th>" in page and "rollback-checkpoint" in page
    True
    >>> cell("<b>", "javascript:alert(1)")
    '&lt;b&gt;'
"""

from __future__ import annotations

from html import escape

from recipekg.render.answers import render_answers
from recipekg.render.numbers import amount


def answer_html(a: dict) -> str:
    """The whole fragment for one answer."""
    statement = a.get("statement")
    head = [f"<p><b>{escape(str(statement))}</b> <code>{escape(str(a.get('query', '')))}</code></p>"]
    pick = (a.get("decision") or {}).get("pick")
    if pick:
        head.append(f"<p>pick: <b>{escape(pick)}</b></p>")
    table = {"recommend": _results, "plan": _quantities, "explain": _rules}.get(statement, lambda a: "")(a)
    text = escape(render_answers([a], "text", detail=True))
    return ("<div class=\"recipekg-answer\">" + "".join(head) + table
            + f"<details><summary>as text</summary><pre>{text}</pre></details></div>")


def cell(text, url: str | None = None) -> str:
    """Escaped text, linked when ``url`` is http(s)."""
    body = escape("" if text is None else str(text))
    if url and url.startswith(("https://", "http://")):
        return f'<a href="{escape(url)}">{body}</a>'
    return body


def _table(header: list[str], rows: list[list[str]]) -> str:
    top = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table>"


def _sources(sources) -> str:
    return ", ".join(cell(s.get("id"), s.get("url")) + (f" ({escape(s['role'])})" if s.get("role") else "")
                     for s in sources or () if isinstance(s, dict))


def _results(a: dict) -> str:
    rows = []
    for r in a.get("results", []):
        reason = (r.get("because") or [{}])[0]
        rows.append([cell(r.get("rank")), f"{cell(r.get('label'))} (<code>{cell(r.get('id'))}</code>)",
                     cell(r.get("group")), cell(r.get("score")), cell(reason.get("text")),
                     _sources(reason.get("sources"))])
    return _table(["#", "choice", "group", "score", "top reason", "sources"], rows)


def _quantities(a: dict) -> str:
    rows = []
    for q in a.get("quantities", []):
        low, high = q.get("low"), q.get("high")
        shown = amount(low, high) if isinstance(low, (int, float)) and isinstance(high, (int, float)) else q.get("value")
        rows.append([cell(q.get("label")), cell(shown), cell(q.get("unit")), cell(q.get("derivation")),
                     _sources(q.get("sources"))])
    return _table(["quantity", "value", "unit", "how", "sources"], rows)


def _rules(a: dict) -> str:
    rows = [[cell(r.get("side")), cell("yes" if r.get("fires") else "no"), cell(r.get("text")),
             cell(r.get("strength")), _sources(r.get("sources"))] for r in a.get("rules", [])]
    return _table(["side", "fires", "rule", "strength", "sources"], rows)


#: The text renderer of each report, by the command that makes it.
_REPORT_TEXT = {"stats": ("recipekg.render.reports", "render_stats"), "vocab": ("recipekg.render.vocab", "render_vocab"),
                "audit": ("recipekg.render.reports", "render_audit")}


def report_html(doc: dict, kind: str) -> str:
    """A command's report: its name, each list of rows as a table, and its text, folded.

    >>> page = report_html(kb.stats(), "stats")
    >>> "<details>" in page and "recipekg stats" in page
    True
    """
    import json

    parts = [f"<p><b>recipekg {escape(kind)}</b></p>"]
    for key, value in doc.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            parts.append(f"<p>{escape(key)} ({len(value)})</p>" + rows_table(value[:200]))
    if kind in _REPORT_TEXT:
        module, name = _REPORT_TEXT[kind]
        text = getattr(__import__(module, fromlist=[name]), name)(doc, "text")
    else:
        text = json.dumps(doc, indent=2, ensure_ascii=False)
    return ("<div class=\"recipekg-report\">" + "".join(parts)
            + f"<details><summary>as text</summary><pre>{escape(text)}</pre></details></div>")


def rows_html(rows: list, kind: str) -> str:
    """A command's rows as one table, headed by the command and their count."""
    return f"<div class=\"recipekg-rows\"><p><b>{escape(kind)}</b> ({len(rows)})</p>{rows_table(rows)}</div>"


def rows_table(rows: list[dict]) -> str:
    """Rows of dicts as a table: a column per key (in first-seen order), each cell flattened."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    body = [[cell(flat(r.get(k)), r.get("url") if k in ("id", "title") else None) for k in keys] for r in rows]
    return _table(keys, body)


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
