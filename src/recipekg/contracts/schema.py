"""JSON Schema (draft 2020-12) from the answers' typed definitions: one generator for every
TypedDict, so the schema cannot say something the types do not.

    >>> from typing import Literal, NotRequired, TypedDict
    >>> Point = TypedDict("Point", {"x": float, "label": str | None, "kind": NotRequired[Literal["a", "b"]]})
    >>> Point.__doc__ = "A point on the plane."
    >>> defs = {}
    >>> schema_of(Point, defs), defs["Point"]["required"], defs["Point"]["properties"]["label"]
    ({'$ref': '#/$defs/Point'}, ['x', 'label'], {'type': ['string', 'null']})
    >>> defs["Point"]["additionalProperties"], defs["Point"]["description"]
    (False, 'A point on the plane.')

A TypedDict becomes an object with exactly its keys (``additionalProperties: false``: a field
the code adds without typing it fails the tests that validate every answer), its
``NotRequired`` keys optional; ``X | None`` admits null; ``Literal`` is an enum; ``list[X]`` an
array; ``dict[str, X]`` an object of X (``dict[str, Any]``: an open object, what a trainer's
configuration is); ``Annotated[str, Names("...")]`` a string of a registry's names (the
enum read from the registry when the schema is made, :data:`NAMES`); nested TypedDicts are
``$defs`` referenced by name; a TypedDict's docstring is its description, and a ``#:``
comment above a key the key's.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import types
import typing
from typing import Any, Callable

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


class Names:
    """The metadata of ``Annotated[str, Names("quantity")]``: a string that is one of the names
    a registry holds (see :data:`NAMES`)."""

    def __init__(self, registry: str) -> None:
        self.registry = registry

    def __repr__(self) -> str:
        return f"Names({self.registry!r})"


#: Registry name → a function giving its names (filled in by :mod:`recipekg.contracts.documents`).
NAMES: dict[str, Callable[[], list[str]]] = {}


def schema_of(tp: Any, defs: dict) -> dict:
    """The JSON Schema of type ``tp``; the TypedDicts it uses are added to ``defs``."""
    if _is_typed_dict(tp):
        return _typed_dict(tp, defs)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if tp is typing.Any:
        return {}
    if origin is typing.Annotated:
        return _annotated(args[0], args[1:], defs)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        return _union([schema_of(a, defs) for a in args])
    if origin is list:
        return {"type": "array", "items": schema_of(args[0], defs)}
    if origin is tuple:
        return {"type": "array", "prefixItems": [schema_of(a, defs) for a in args], "items": False}
    if origin is dict:
        keys, values = schema_of(args[0], defs), schema_of(args[1], defs)
        return {"type": "object", **({"propertyNames": keys} if "enum" in keys else {}),
                **({"additionalProperties": values} if values else {})}
    raise TypeError(f"no JSON Schema for {tp!r}")


def _annotated(tp: Any, metadata: tuple, defs: dict) -> dict:
    out = schema_of(tp, defs)
    for m in metadata:
        if isinstance(m, Names):
            out = {**out, "enum": sorted(NAMES[m.registry]())}
    return out


def _union(parts: list[dict]) -> dict:
    if all(set(p) == {"type"} for p in parts):  # scalars: one "type" list
        names: list[str] = []
        for p in parts:
            names += p["type"] if isinstance(p["type"], list) else [p["type"]]
        return {"type": names}
    return {"anyOf": parts}


def _is_typed_dict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _typed_dict(tp: Any, defs: dict) -> dict:
    ref = {"$ref": f"#/$defs/{tp.__name__}"}
    if tp.__name__ in defs:
        if defs[tp.__name__].get("x-python") not in (None, _qualname(tp)):
            raise TypeError(f"two TypedDicts named {tp.__name__}: {_qualname(tp)}, {defs[tp.__name__]['x-python']}")
        return ref
    defs[tp.__name__] = {"x-python": _qualname(tp)}  # a placeholder first: recursive types refer to themselves
    hints = typing.get_type_hints(tp, include_extras=True)
    docs = field_docs(tp)
    properties = {}
    for key, hint in hints.items():
        properties[key] = schema_of(_unwrap(hint), defs)
        if key in docs:
            properties[key] = {"description": plain(docs[key]), **properties[key]}
    body: dict = {"type": "object"}
    if tp.__doc__ and tp.__doc__ is not dict.__doc__:
        body["description"] = plain(" ".join(inspect.cleandoc(tp.__doc__).split()))
    required = required_keys(tp)
    body.update(properties=properties, required=[k for k in hints if k in required], additionalProperties=False)
    defs[tp.__name__] = {**body, "x-python": _qualname(tp)}
    return ref


def required_keys(tp: Any) -> set[str]:
    """The keys a TypedDict requires: its ``__required_keys__`` (which follow totality and
    inheritance) without those its evaluated annotations mark ``NotRequired`` (with ``from
    __future__ import annotations`` the class cannot see them when it is made), with those they
    mark ``Required``."""
    hints = typing.get_type_hints(tp, include_extras=True)
    marked = {k: typing.get_origin(h) for k, h in hints.items()}
    return ({k for k in tp.__required_keys__ if marked[k] is not typing.NotRequired}
            | {k for k in tp.__optional_keys__ if marked[k] is typing.Required})


def plain(text: str) -> str:
    """A docstring as a description: Markdown code spans, no Sphinx roles.

    >>> plain("the ``as_of`` of :mod:`recipekg.reason.recency`")
    'the `as_of` of `recipekg.reason.recency`'
    """
    return re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text).replace("``", "`")


def _qualname(tp: Any) -> str:
    return f"{tp.__module__}.{tp.__qualname__}"


def _unwrap(tp: Any) -> Any:
    """``NotRequired[X]`` / ``Required[X]`` → ``X``."""
    if typing.get_origin(tp) in (typing.NotRequired, typing.Required):
        return typing.get_args(tp)[0]
    return tp


def field_docs(tp: type) -> dict[str, str]:
    """The ``#:`` comments above the keys of a class, by key (its own keys, then its bases')."""
    out: dict[str, str] = {}
    for klass in reversed(tp.__mro__):
        if klass in (dict, object) or not hasattr(klass, "__annotations__"):
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        lines = source.splitlines()
        for node in ast.parse(source).body[0].body:  # type: ignore[attr-defined]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                comment: list[str] = []
                at = node.lineno - 2
                while at >= 0 and lines[at].strip().startswith("#:"):
                    comment.insert(0, lines[at].strip()[2:].strip())
                    at -= 1
                if comment:
                    out[node.target.id] = " ".join(comment)
    return out


def document(root: Any, title: str, description: str | None = None) -> dict:
    """A whole schema document: ``root``'s schema (a TypedDict's definition at the top, the
    references to it ``#``) with every definition it uses."""
    defs: dict = {}
    body = schema_of(root, defs)
    name = root.__name__ if _is_typed_dict(root) else None
    if name is not None:
        body = defs.pop(name)
    out: dict = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title}
    if description:
        out["description"] = description
    out.update({k: v for k, v in body.items() if k != "x-python"})
    out["$defs"] = {k: {f: x for f, x in v.items() if f != "x-python"} for k, v in sorted(defs.items())}
    return _point_at_root(out, f"#/$defs/{name}") if name else out


def _point_at_root(doc: Any, ref: str) -> Any:
    if isinstance(doc, dict):
        return {k: ("#" if k == "$ref" and v == ref else _point_at_root(v, ref)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_point_at_root(v, ref) for v in doc]
    return doc
