"""Value objects: what ``@dataclass`` gives (fields, ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` and an error on assignment when frozen), without importing :mod:`dataclasses`
(with :mod:`inspect`, and a generated function per class, a quarter of a cold ``recipekg
plan``). The one base of the syntax tree's nodes, the reasoner's facts, the planner's values
and the citation bundles. A subclass declares its fields as annotations, defaults last::

    >>> class Span(Record):
    ...     low: float
    ...     high: float = 1.0
    >>> s = Span(0.5)
    >>> s, s == Span(0.5, 1.0), hash(s) == hash(Span(low=0.5)), s.high
    (Span(low=0.5, high=1.0), True, True, 1.0)
    >>> s.low = 2
    Traceback (most recent call last):
    recipekg.errors.FrozenInstanceError: cannot assign to field 'low'

and gets ``__init__`` (positional or keyword), ``__repr__``, ``__eq__``, ``__match_args__``,
copying and pickling and, when frozen (the default; ``class X(Record, frozen=False)`` is mutable and
unhashable, as a dataclass), ``__hash__`` and an error on assignment. With ``slots=True``
the fields are slots (no ``__dict__`` per object, as the syntax tree's nodes); a class may
write its own ``__init__`` for speed (setting frozen fields with ``object.__setattr__``)::

    >>> class Point(Record, slots=True):
    ...     x: float
    ...     y: float
    >>> import copy
    >>> p = Point(1.0, 2.0)
    >>> copy.deepcopy(p) == p, Point.__match_args__, hasattr(p, "__dict__")
    (True, ('x', 'y'), False)
"""

from __future__ import annotations

from recipekg.errors import FrozenInstanceError

_set = object.__setattr__


class _Fields(type):
    """Records' metaclass: the fields are the class's annotations (after its bases'), defaults
    the values given them; with ``slots=True`` they are the class's ``__slots__`` (the defaults
    kept aside, as slots cannot have class values)."""

    def __new__(mcls, name, bases, ns, frozen: bool = True, slots: bool = False, **kwargs):
        own = tuple(ns.get("__annotations__", ())) if bases else ()  # the base's own are its class attributes
        defaults = {n: ns[n] for n in own if n in ns}
        if slots:
            for n in defaults:
                del ns[n]
            ns["__slots__"] = own
        if not frozen:  # mutable: plain attribute setting (no check per assignment), unhashable as a dataclass
            ns.update(__setattr__=object.__setattr__, __delattr__=object.__delattr__, __hash__=None)
        cls = super().__new__(mcls, name, bases, ns, **kwargs)
        inherited = getattr(cls, "fields", ())
        cls.fields = (tuple(f for f in inherited if f not in own) + own) if inherited else own
        cls.defaults = {**getattr(cls, "defaults", {}), **defaults} if defaults else getattr(cls, "defaults", {})
        cls.frozen = frozen
        if "__match_args__" not in ns:
            cls.__match_args__ = cls.fields
        return cls


class Record(metaclass=_Fields):
    """The base of the value objects (see the module's documentation)."""

    __slots__ = ()
    fields: tuple[str, ...] = ()
    defaults: dict = {}
    frozen = True

    def __init__(self, *args, **kwargs) -> None:
        fields = self.fields
        if not kwargs and len(args) == len(fields):  # every field given in order: the common call
            for name, value in zip(fields, args):
                _set(self, name, value)
            return
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__qualname__}() takes {len(fields)} arguments, {len(args)} given")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{type(self).__qualname__}() got an unexpected or repeated argument {name!r}")
            values[name] = value
        for name in fields:
            if name not in values:
                if name not in self.defaults:
                    raise TypeError(f"{type(self).__qualname__}() missing argument {name!r}")
                values[name] = self.defaults[name]
            _set(self, name, values[name])

    def astuple(self) -> tuple:
        """The fields' values, in order."""
        fields = self.fields
        return tuple(map(getattr, (self,) * len(fields), fields))  # getattr's, in C: no generator

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self.fields)})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self.astuple() == other.astuple()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.astuple())

    def __setattr__(self, name, value):
        if self.frozen:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        _set(self, name, value)

    def __delattr__(self, name):
        if self.frozen:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    def __getstate__(self):
        return self.astuple()

    def __setstate__(self, state) -> None:
        for f, v in zip(self.fields, state):
            _set(self, f, v)
