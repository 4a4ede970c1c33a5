"""Value objects for the planner: what ``@dataclass(frozen=True)`` gives, without importing
:mod:`dataclasses` (with :mod:`inspect`, and a generated function per class, a quarter of a cold
``recipekg plan``). A subclass declares its fields as annotations, defaults last::

    >>> class Span(Record):
    ...     low: float
    ...     high: float = 1.0
    >>> s = Span(0.5)
    >>> s, s == Span(0.5, 1.0), hash(s) == hash(Span(low=0.5)), s.high
    (Span(low=0.5, high=1.0), True, True, 1.0)
    >>> s.low = 2
    Traceback (most recent call last):
    recipekg.errors.FrozenInstanceError: cannot assign to field 'low'

and gets ``__init__`` (positional or keyword), ``__repr__``, ``__eq__`` and, when frozen (the
default; ``class X(Record, frozen=False)`` is mutable and unhashable, as a dataclass), ``__hash__``
and an error on assignment.
"""

from __future__ import annotations

from recipekg.errors import FrozenInstanceError

_set = object.__setattr__


class Record:
    """The base of the planner's value objects (see the module's documentation)."""

    fields: tuple[str, ...] = ()
    defaults: dict = {}
    frozen = True

    def __init_subclass__(cls, frozen: bool = True, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        own = tuple(n for n in cls.__dict__.get("__annotations__", {}) if n not in ("fields", "defaults"))
        cls.fields = tuple(f for f in cls.fields if f not in own) + own
        cls.defaults = {**cls.defaults, **{n: cls.__dict__[n] for n in own if n in cls.__dict__}}
        cls.frozen = frozen
        if not frozen:
            cls.__hash__ = None  # mutable and compared by value: unhashable, as a dataclass

    def __init__(self, *args, **kwargs) -> None:
        fields = self.fields
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
        return tuple(getattr(self, f) for f in self.fields)

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
