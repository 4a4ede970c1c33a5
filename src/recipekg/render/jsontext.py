"""``json.dumps(obj, indent=2)``, byte for byte, without importing :mod:`json`.

Every JSON answer is written indented, and :mod:`json` writes indented output with its
pure-Python encoder (the C one takes no indent before Python 3.13): a generator per
container, one ``yield`` per token. Importing :mod:`json` also imports :mod:`re` (with
:mod:`enum` and :mod:`functools`) and compiles its patterns: about a sixth of a cold
``recipekg query --format json`` (docs/performance.md). This writer appends to one list,
with the strings escaped by the C functions :mod:`json` itself uses (``_json``); a test
compares it with :func:`json.dumps` on every answer of the golden files and on generated
values.

    >>> print(dumps({"a": [1, 2.5, None, True], "b": {}, "c": "é\\n", 3: []}, ensure_ascii=False))
    {
      "a": [
        1,
        2.5,
        null,
        true
      ],
      "b": {},
      "c": "é\\n",
      "3": []
    }
    >>> dumps(["é", float("inf")]) == '[\\n  "\\\\u00e9",\\n  Infinity\\n]'
    True
"""

from __future__ import annotations

from _json import encode_basestring, encode_basestring_ascii

_INF = float("inf")


def dumps(obj, *, ensure_ascii: bool = True) -> str:
    """``json.dumps(obj, indent=2, ensure_ascii=ensure_ascii)`` (its defaults otherwise: NaN
    and infinities written as JavaScript names, keys in the dict's order, tuples as arrays)."""
    parts: list[str] = []
    _value(obj, parts.append, "\n", encode_basestring_ascii if ensure_ascii else encode_basestring)
    return "".join(parts)


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def _value(o, out, nl: str, enc) -> None:
    """Write one value (in the order of :mod:`json`'s checks: a subclass of ``str``, ``int``,
    ``float``, ``list`` or ``dict`` is written as its base)."""
    if isinstance(o, str):
        out(enc(o))
    elif isinstance(o, (dict, list, tuple)) and o:
        (_object if isinstance(o, dict) else _array)(o, out, nl, enc)
    else:
        out(_scalar(o))


def _array(items, out, nl: str, enc) -> None:
    if not items:
        out("[]")
        return
    inner = nl + "  "
    sep = "[" + inner
    for v in items:
        if isinstance(v, str):
            out(sep + enc(v))
        elif isinstance(v, (dict, list, tuple)) and v:
            out(sep)
            (_object if isinstance(v, dict) else _array)(v, out, inner, enc)
        else:
            out(sep + _scalar(v))
        sep = "," + inner
    out(nl + "]")


def _object(obj: dict, out, nl: str, enc) -> None:
    if not obj:
        out("{}")
        return
    inner = nl + "  "
    sep = "{" + inner
    for k, v in obj.items():
        key = sep + enc(k if isinstance(k, str) else _key(k)) + ": "
        if isinstance(v, str):
            out(key + enc(v))
        elif isinstance(v, (dict, list, tuple)) and v:
            out(key)
            (_object if isinstance(v, dict) else _array)(v, out, inner, enc)
        else:
            out(key + _scalar(v))
        sep = "," + inner
    out(nl + "}")


def _scalar(o) -> str:
    """A value that is not a string nor a non-empty container, as :mod:`json` writes it."""
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        return _float(o)
    if isinstance(o, (list, tuple)):
        return "[]"
    if isinstance(o, dict):
        return "{}"
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _key(k) -> str:
    if isinstance(k, float):
        return _float(k)
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")
