"""An answer as an HTML fragment, for notebooks (:class:`recipekg.notebook.Answer`): the query,
its constraints, a table of the rows (results, quantities or rules) and, folded, the text
rendering the command line prints. Every KB or user text is escaped; only http(s) URLs
become links.

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
