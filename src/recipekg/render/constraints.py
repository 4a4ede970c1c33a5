"""THE constraint formatter: a constraint of an answer back in the query language.

    >>> format_constraint({"dimension": "mfu", "op": "=", "value": 0.4, "unit": "fraction"})
    'mfu = 40%'
    >>> format_constraint({"dimension": "samples", "op": "between", "value": [5000, 50000], "unit": "count"})
    'samples between 5k and 50k'
    >>> constraint_line([{"dimension": "gpu-memory", "op": "=", "value": 8e10, "unit": "bytes",
    ...                   "derived_from": "hardware"}])
    'gpu-memory = 80GB (from hardware)'
    >>> constraint_label({"dimension": "params", "op": "=", "value": 7e10, "unit": "count", "derived_from": "architecture",
    ...                   "note": "the size Llama 3 70B is published as; its weights count 70.55B"})
    'params = 70B (from architecture: the size Llama 3 70B is published as; its weights count 70.55B)'
    >>> constraint_label({"dimension": "gpu-memory", "op": "=", "value": 1e10, "unit": "bytes",
    ...                   "given_as": "80Gb", "note": "Gb is gigabits"})
    'gpu-memory = 10GB (given as 80Gb: Gb is gigabits, 8 bits to a byte)'
    >>> constraint_label({"dimension": "symptom", "op": "=", "value": "slow-divergence", "given_as": "divergence"})
    'symptom = slow-divergence (given as divergence)'
    >>> constraint_label({"dimension": "pretrained", "op": "=", "value": "yes", "derived_from": "architecture",
    ...                   "note": "Mistral 7B's pretrained weights are released", "sources": [{"id": "jiang2023"}]})
    "pretrained = yes (from architecture: Mistral 7B's pretrained weights are released [jiang2023])"

Every output (text, Markdown, the web page, explain's suggested queries) writes constraints
through these two functions. A value the reference has no advice for is said so, with the
nearest advice it has, labelled (:func:`no_advice_lines`).
"""

from __future__ import annotations

from recipekg.render.numbers import value


def format_constraint(c: dict) -> str:
    """``dimension op value`` in query syntax, the value in the unit the answer names."""
    unit = c.get("unit")
    fmt = lambda x: value(x, unit)  # noqa: E731
    v = c["value"]
    if c["op"] == "between":
        return f"{c['dimension']} between {fmt(v[0])} and {fmt(v[1])}"
    if isinstance(v, list):
        return f"{c['dimension']} {c['op']} ({', '.join(fmt(x) for x in v)})"
    return f"{c['dimension']} {c['op']} {fmt(v)}"


def constraint_label(c: dict) -> str:
    """:func:`format_constraint`, saying where a derived constraint comes from, how a value
    given in bits was read, and the words a value was given by when they are not its name (an
    alias: ``divergence`` is read as ``slow-divergence``)."""
    own = f" [extension {c['origin']['file']}, line {c['origin']['line']}]" if c.get("origin") else ""
    if c.get("given_as") and c.get("note"):
        return format_constraint(c) + f" (given as {c['given_as']}: {c['note']}, 8 bits to a byte)" + own
    if c.get("given_as") and not c.get("derived_from"):  # a value named by other words: which it was read as
        return format_constraint(c) + f" (given as {c['given_as']})" + own
    note = f": {c['note']}" if c.get("note") else ""  # (a named model's published size, beside its count)
    if c.get("sources"):  # (what a named choice gives, with its sources)
        note += f" [{', '.join(s['id'] for s in c['sources'])}]"
    return format_constraint(c) + (f" (from {_listed(c['derived_from'])}{note})" if c.get("derived_from") else "") + own


def _listed(sources: str) -> str:
    """``params and hardware and gpus`` (what a derived constraint comes from) as a list is written.

    >>> _listed("params and hardware and gpus"), _listed("gpus and time")
    ('params, hardware and gpus', 'gpus and time')
    """
    parts = sources.split(" and ")
    return sources if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


def constraint_line(constraints: list[dict]) -> str:
    """All constraints of an answer on one line (``none`` when there are none)."""
    return ", ".join(constraint_label(c) for c in constraints) or "none"


#: What an answer given a value without advice rests on.
OTHERS_ALONE = "What follows comes from the other constraints alone."


def implied_lines(constraints: list[dict]) -> list[str]:
    """One line per given constraint another one says otherwise about.

    >>> implied_lines([{"dimension": "data", "op": "=", "value": "tabular", "implied_otherwise": [
    ...     {"dimension": "task", "value": ["forecasting"], "implies": ["time-series"]}]}])
    ['note: task = forecasting implies data = time-series, which data = tabular does not agree with: the answer reads data = tabular as you gave it']
    >>> implied_lines([{"dimension": "bandwidth", "op": "=", "value": 3.125e9, "unit": "bytes/s", "implied_otherwise": [
    ...     {"dimension": "hardware", "value": ["a100"], "implies": [], "figures": [2.039e12], "unit": "bytes/s"}]}])
    ['note: hardware = a100 implies bandwidth = 2.039TB/s, which bandwidth = 3.125GB/s does not agree with: the answer reads bandwidth = 3.125GB/s as you gave it']
    """
    out = []
    for c in constraints:
        for other in c.get("implied_otherwise", ()):
            implies = " or ".join(other["implies"] or [value(x, other.get("unit")) for x in other.get("figures", ())])
            if other.get("note"):  # (what a named choice gives, with its sources, and an extension's origin)
                implies += f" ({other['note']} [{', '.join(s['id'] for s in other.get('sources', ()))}])"
                if other.get("origin"):
                    implies += f" [extension {other['origin']['file']}, line {other['origin']['line']}]"
            out.append(f"note: {other['dimension']} = {', '.join(other['value'])} implies {c['dimension']} = {implies}, "
                       f"which {format_constraint(c)} does not agree with: the answer reads {format_constraint(c)} "
                       f"as you gave it")
    return out


def no_advice_lines(constraints: list[dict]) -> list[str]:
    """One line per value of the constraints that the reference gives no advice for, then
    where its nearest advice is: a statement to ask for it, never answered in its place.

    >>> no_advice_lines([{"dimension": "task", "op": "=", "value": "segmentation", "no_advice": [
    ...     {"value": "segmentation", "label": "segmentation", "message": "The reference has no advice for it.",
    ...      "nearest_query": "recommend architecture where data = images", "nearest_section": "vision"}]}])
    ['no advice: task = segmentation — The reference has no advice for it. What follows comes from the other constraints alone.', '  nearest advice it has (a different question, not this answer): recommend architecture where data = images (section vision)']
    """
    out = implied_lines(constraints)
    for c in constraints:
        for gap in c.get("no_advice", ()):
            own = f" (extension {gap['origin']['file']}, line {gap['origin']['line']})" if gap.get("origin") else ""
            out.append(f"no advice: {c['dimension']} = {gap['value']}{own} — {gap['message']} {OTHERS_ALONE}")
            if gap.get("nearest_query"):
                where = f" (section {gap['nearest_section']})" if gap.get("nearest_section") else ""
                out.append(f"  nearest advice it has (a different question, not this answer): "
                           f"{gap['nearest_query']}{where}")
    return out
