"""Values derived from a loaded snapshot, computed once per snapshot and process.

A warm process (the web server, a notebook, ``-f`` with several statements) answers many
statements from one snapshot; what every answer derives from the snapshot alone (a plan's
view of the constants and formulas, the MFUs of the published runs) is computed the first
time and kept with the snapshot it came from. A snapshot is identified by the object
(``is``), never by value: a copy, even an equal one, is another snapshot with values of its
own, so a test that changes a copy cannot read values derived from the original. The most
recent :data:`KEPT` snapshots keep theirs (a process rarely holds more than one)::

    >>> a, b = {"x": 1}, {"x": 1}
    >>> once(a, "double", lambda s: s["x"] * 2), once(b, "double", lambda s: 0)
    (2, 0)
    >>> once(a, "double", lambda s: 99)
    2

Only what depends on the snapshot alone belongs here, and a value kept here is shared by
every answer: it is never changed after it is built, but for a :func:`table`, which answers fill
entry by entry with what the snapshot alone gives for a key (so whoever fills one fills it alike).
"""

from __future__ import annotations

#: How many snapshots keep their derived values.
KEPT = 4

_kept: list[tuple[dict, dict]] = []   # (snapshot, its derived values by name), most recent first


def once(snap: dict, name: str, build):
    """``build(snap)``, computed the first time it is asked for ``snap`` (by identity)."""
    for i, (s, values) in enumerate(_kept):
        if s is snap:
            if i:
                _kept.insert(0, _kept.pop(i))
            break
    else:
        values = {}
        _kept.insert(0, (snap, values))
        del _kept[KEPT:]
    try:
        return values[name]
    except KeyError:
        value = values[name] = build(snap)
        return value


def table(snap: dict, name: str) -> dict:
    """A dict kept with ``snap`` under ``name``, empty at first: what answers compute for a key from
    the snapshot alone (a choice's own method, what a value implies), each entry computed once
    and kept (a table its user bounds may be cleared, as the derived tiers' is).

    >>> t = table({}, "squares")
    >>> t.setdefault(3, 9), table({}, "squares") is t
    (9, False)
    """
    return once(snap, name, _empty)


def _empty(snap: dict) -> dict:
    return {}
