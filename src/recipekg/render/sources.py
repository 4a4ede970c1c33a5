"""Sources with their role, and caveats, as every text and Markdown output writes them.

A source object (:func:`recipekg.reason.answers.sources_json`) says what the source does for
the claim: it ``states`` the figure (``where`` locates it), ``supports`` the mechanism, is the
``method``'s original paper, or the claim is the ``reference``'s own judgement::

    >>> chinchilla = {"id": "hoffmann2022", "role": "states", "where": "Table 3", "arxiv": "2203.15556"}
    >>> reference = {"id": "reference", "role": "reference", "arxiv": None, "url": None}
    >>> sources_text([chinchilla, reference])
    "hoffmann2022 (states: Table 3; arXiv:2203.15556); reference (the reference's judgement)"
    >>> source_short(chinchilla)
    'hoffmann2022 (states: Table 3)'
"""

from __future__ import annotations

import marshal

#: How a role reads after the source's id.
REFERENCE_WORDS = "the reference's judgement"


def role_text(s: dict) -> str:
    """``states: Table 3``, ``supports``, ``method``, ``the reference's judgement`` (empty
    for a source object without a role)."""
    role = s.get("role")
    if role == "reference":
        return REFERENCE_WORDS
    if not role:
        return ""
    return f"{role}: {s['where']}" if s.get("where") else role


def origin_text(item: dict) -> str:
    """``extension FILE, line N`` for what an extension added (its ``origin``), else ``""``.

    >>> origin_text({"origin": {"file": "team.ttl", "line": 12}}), origin_text({})
    ('extension team.ttl, line 12', '')
    """
    o = item.get("origin") if isinstance(item, dict) else None
    return f"extension {o['file']}, line {o['line']}" if o else ""


def origins(doc) -> dict[str, list[int]]:
    """Every extension file whose knowledge is somewhere in ``doc`` (an answer), with the lines
    of its claims there, in order: what a short answer names although it leaves the claims out.

    >>> origins({"results": [{"origin": {"file": "t.ttl", "line": 9}}, {"because": [{"origin": {"file": "t.ttl", "line": 3}}]}]})
    {'t.ttl': [3, 9]}
    """
    if not _may_name_origin(doc):
        return {}
    found: dict[str, set[int]] = {}
    containers = (dict, list)
    todo = [doc]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            o = x.get("origin")
            if isinstance(o, dict) and "file" in o:
                found.setdefault(o["file"], set()).add(o.get("line") or 0)
            x = x.values()
        elif not isinstance(x, list):
            continue
        for v in x:
            if isinstance(v, containers):
                todo.append(v)
    return {f: sorted(lines) for f, lines in sorted(found.items())}


def _may_name_origin(doc) -> bool:
    """False when no text anywhere in ``doc`` holds ``origin``, so no dict in it has that key:
    marshal (in C) writes the bytes of each string it meets the first time, keys included,
    which costs half the walk of :func:`origins` over a plan's answer; True when it cannot tell
    (a type marshal does not write, such as a subclass of dict).

    >>> _may_name_origin({"a": [{"origin": None}]}), _may_name_origin({"a": [1.5, "x"]})
    (True, False)
    """
    try:
        data = marshal.dumps(dict(doc) if type(doc) is not dict and isinstance(doc, dict) else doc)
    except ValueError:  # a type marshal does not write, or nested too deep for it
        return True
    return b"origin" in data


def origins_line(doc) -> str:
    """The line a short text answer ends with when an extension contributed to it (empty when
    none did): each file and the lines of its claims, and where to see them.

    >>> origins_line({"origin": {"file": "t.ttl", "line": 3}})
    'from extensions, not the KB: extension t.ttl, line 3 (--detail shows each claim)'
    >>> origins_line([{"origin": {"file": "t.ttl", "line": n}} for n in range(1, 1001)]).split(": ", 1)[1]
    'extension t.ttl, lines 1, 2, 3, 4, 5, 6, 7, 8, … (1000 claims) (--detail shows each claim)'
    """
    found = origins(doc)
    if not found:
        return ""
    parts = [f"extension {f}, line{'s' * (len(lines) > 1)} {', '.join(map(str, lines[:SHOWN_LINES]))}"
             + (f", … ({len(lines)} claims)" if len(lines) > SHOWN_LINES else "") for f, lines in found.items()]
    return f"from extensions, not the KB: {'; '.join(parts)} (--detail shows each claim)"


#: The lines of an extension's claims a short answer names (the rest counted): an extension of
#: thousands of claims must not make the short answer long.
SHOWN_LINES = 8


def source_text(s: dict) -> str:
    """One source: its id, role and where to find it (arXiv id or URL)."""
    link = None if s.get("role") == "reference" else (f"arXiv:{s['arxiv']}" if s.get("arxiv") else s.get("url"))
    inside = "; ".join(x for x in (role_text(s), link, origin_text(s)) if x)
    return f"{s['id']} ({inside})" if inside else s["id"]


def sources_text(sources: list[dict]) -> str:
    """A claim's sources, ``;``-separated, each with its role and link."""
    return "; ".join(source_text(s) for s in sources)


def source_short(s: dict) -> str:
    """One source with its role, without the link (tables, plan lines)."""
    role = "; ".join(x for x in (role_text(s), origin_text(s)) if x)
    return f"{s['id']} ({role})" if role else s["id"]


def sources_short(sources: list[dict], sep: str = ", ") -> str:
    """Sources with their roles, each (id, role, where) once, in order."""
    seen, out = set(), []
    for s in sources:
        key = (s["id"], s.get("role"), s.get("where"))
        if key not in seen:
            seen.add(key)
            out.append(source_short(s))
    return sep.join(out)


def caveat_line(item: dict, indent: str = "") -> list[str]:
    """``caveat: ...`` for a claim that has one (its rdfs:comment), else nothing."""
    return [f"{indent}caveat: {item['caveat']}"] if item.get("caveat") else []
