"""Snapshot data split into shards, so that a query decodes only the entries it reads.

:func:`split` turns every large container of the snapshot (a dict with sorted keys, or a
list) into a *sentinel* plus a run of shards, each a marshal blob of at most
:func:`shard_size` entries with its own CRC-32. :func:`join` turns the sentinels back into
read-only views (:class:`LazyMap`, :class:`LazyList`) that decode a shard the first time one
of its entries is read. The snapshot is canonical data (what JSON gives back: no tuples),
so a tuple is never data and can mark a sentinel::

    >>> snap = {"nodes": {f"n{i:03}": {"id": i} for i in range(100)}, "format": 4}
    >>> (paths, core), shards = split(snap)
    >>> paths, core["nodes"][0], len(core["nodes"][2])   # where, and a sentinel: kind, table
    ([['nodes']], 'map', 13)
    >>> view = join((paths, core), Source(shards))
    >>> view["nodes"]["n042"], len(view["nodes"]), view["nodes"].decoded   # one shard of 13 read
    ({'id': 42}, 100, 1)
    >>> list(view["nodes"])[:2], view["nodes"] == snap["nodes"]
    (['n000', 'n001'], True)

A shard whose bytes do not match their CRC is damage: the :class:`Source` asks its
``rebuild`` callback for the whole snapshot once and every view answers from that instead.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from binascii import crc32
# collections.abc re-exports these from _collections_abc, which Python loads at start-up;
# importing collections.abc would load collections too: a tenth of a cold query.
from _collections_abc import ItemsView, Mapping, Sequence, ValuesView
from itertools import islice

#: A container with more entries than this is split; a shard holds at most this many.
PER_SHARD = 32
#: A container of at most SMALL entries is cut finer, SMALL_SHARD entries a shard: a query reads a
#: few entries of each, and decoding the other 31 of a shard was a third of a cold plan's work
#: (docs/performance.md); a larger one keeps PER_SHARD, so that its table in the core, decoded on
#: every call, stays a row per 32 entries.
SMALL, SMALL_SHARD = 4096, 8
#: Top-level tables only some commands read (plan's index of IRIs, the recipe's tables): a
#: shard of their own whatever their size, their maps cut in shards of PER_SHARD entries, so
#: that the core, which every command decodes, holds one row for each.
WHOLE = {("plan_index",), ("hyperparameters",), ("regimes",), ("recipe_sections",), ("failure_modes",),
         ("choice_conditions",), ("training_methods",), ("trains_weights",), ("method_layouts",), ("fixed_by",)}


def shard_size(size: int) -> int:
    """How many entries each shard of a container of ``size`` entries holds (the last: the rest).

    >>> shard_size(100), shard_size(100_000)
    (8, 32)
    """
    return SMALL_SHARD if size <= SMALL else PER_SHARD


def split(snap: dict) -> tuple[tuple, bytes]:
    """``(paths, core)``: the snapshot with its large containers replaced by sentinels and
    where those sentinels are, and the shards' bytes."""
    out, paths = bytearray(), []
    core = _split(snap, out, (), paths, top=True)
    return (paths, core), bytes(out)


def _split(value, out: bytearray, path: tuple, paths: list, top: bool = False):
    if isinstance(value, dict):
        items = {k: _split(v, out, path + (k,), paths) for k, v in value.items()}
        keys = list(items)
        if (top or len(keys) <= PER_SHARD and path not in WHOLE or keys != sorted(keys)
                or not all(type(k) is str for k in keys)):
            return items
        below = _take_below(path, paths)
        per = PER_SHARD if path[:1] in WHOLE else shard_size(len(keys))
        chunks = [keys[i:i + per] for i in range(0, len(keys), per)]
        table = [(c[0], *_shard({k: items[k] for k in c}, out, [p for p in below if p[0] in c]))
                 for c in chunks]
        return _sentinel(("map", len(keys), table), path, paths)
    if isinstance(value, list):
        items = [_split(v, out, path + (i,), paths) for i, v in enumerate(value)]
        if len(items) <= PER_SHARD:
            return items
        below = _take_below(path, paths)
        per = shard_size(len(items))
        table = [_shard(items[i:i + per], out, [[p[0] - i, *p[1:]] for p in below if i <= p[0] < i + per])
                 for i in range(0, len(items), per)]
        return _sentinel(("list", len(items), table), path, paths)
    return value


def _take_below(path: tuple, paths: list) -> list:
    """Remove from ``paths`` the sentinels below ``path`` (about to move into its shards) and
    return where they are relative to it."""
    prefix, n = list(path), len(path)
    below = [p[n:] for p in paths if p[:n] == prefix]
    paths[:] = [p for p in paths if p[:n] != prefix]
    return below


def _sentinel(sentinel: tuple, path: tuple, paths: list) -> tuple:
    """Record where ``sentinel`` is."""
    paths.append(list(path))
    return sentinel


def _shard(data, out: bytearray, nested: list) -> tuple[int, int, int, list]:
    """Append one shard; its table row ends ``offset, length, crc, nested`` (``nested``: where
    the sentinels of its own are, so that reading it joins them without walking it)."""
    blob = marshal.dumps(data)
    offset = len(out)
    out += blob
    return (offset, len(blob), crc32(blob), nested)


_MISSING = object()  # an item of a lazy list not decoded yet


class Damaged(Exception):
    """A shard's bytes do not match their CRC (or do not decode)."""


class Source:
    """The shards' bytes (a memory map of the cache file, or bytes) and what to do on damage:
    ``rebuild()`` returns the whole snapshot, built afresh, once."""

    def __init__(self, data, rebuild=None) -> None:
        self.data = data
        self.rebuild = rebuild
        self.fresh = None
        self.loads = 0  # shards decoded so far, by every view over this source

    def load(self, offset: int, length: int, crc: int):
        if type(offset) is not int or type(length) is not int or not 0 <= offset <= len(self.data):
            raise Damaged(offset)
        blob = self.data[offset:offset + length]
        if len(blob) != length or crc32(blob) != crc:
            raise Damaged(offset)
        try:
            data = marshal.loads(blob)
        except (ValueError, EOFError, TypeError):
            raise Damaged(offset) from None
        self.loads += 1
        return data

    def replacement(self, path: tuple):
        """The container at ``path`` in the rebuilt snapshot (rebuilt on first need)."""
        if self.rebuild is None:
            raise Damaged("no way to rebuild")
        if self.fresh is None:
            self.fresh = self.rebuild()
        node = self.fresh
        for key in path:
            node = node[key]
        return node


def join(core: tuple, source: Source):
    """The snapshot of a ``(paths, data)`` pair from :func:`split`, each sentinel replaced,
    in place along its path, by a lazy view over ``source``."""
    paths, data = core
    return _place(data, paths, source, ())


def _place(data, paths: list, source: Source, base: tuple, first: int = 0):
    """``data`` with the sentinels at ``paths`` replaced by views (whose own path is ``base``
    followed by the sentinel's, its first index shifted by ``first`` in a list shard)."""
    for where in paths:
        parent = data
        for key in where[:-1]:
            parent = parent[key]
        head = where[0] + first if first else where[0]
        parent[where[-1]] = _view(parent[where[-1]], source, (*base, head, *where[1:]))
    return data


def _view(sentinel: tuple, source: Source, path: tuple):
    return (LazyMap if sentinel[0] == "map" else LazyList)(source, sentinel[1], sentinel[2], path)


def materialize(value):
    """``value`` with every lazy view decoded into a plain dict or list (for JSON, or to
    compare with a fresh build).

    >>> core, shards = split({"a": list(range(40))})
    >>> materialize(join(core, Source(shards)))["a"][-1]
    39
    """
    if isinstance(value, (dict, LazyMap)):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (list, LazyList)):
        return [materialize(v) for v in value]
    return value


class _Lazy:
    def __init__(self, source: Source, size: int, table: list, path: tuple) -> None:
        self._source, self._size, self._table, self._path = source, size, table, path
        self._shards: dict[int, object] = {}
        self._whole = None  # the rebuilt container, after damage
        self._seen: dict = {}  # a map's entries of the shards decoded so far, for look-ups
        self._all = None  # once every shard is decoded: the whole container, plain (iterated in C)

    @property
    def source(self) -> Source:
        return self._source

    @property
    def decoded(self) -> int:
        """How many shards have been decoded so far."""
        return len(self._shards)

    def _shard(self, n: int, keep: bool = True):
        shard = self._shards.get(n)
        if shard is None:
            try:  # a row of the wrong shape is damage like a wrong CRC
                offset, length, crc, nested = self._table[n][-4:]
                shard = self._source.load(offset, length, crc)
                first = n * shard_size(self._size) if type(shard) is list else 0
                shard = _place(shard, nested, self._source, self._path, first)
            except (Damaged, ValueError, TypeError, KeyError, IndexError):
                self._whole = self._source.replacement(self._path)
                raise Damaged(n) from None
            if keep:
                self._shards[n] = shard
                self._decoded(n, shard)
        return shard

    def _decoded(self, n: int, shard) -> None:
        """Note a shard just decoded (and kept)."""

    def __len__(self) -> int:
        return self._size

    def __deepcopy__(self, memo):
        """A deep copy is plain data (a dict or a list), decoded in full."""
        from copy import deepcopy

        return deepcopy(materialize(self), memo)

    def __reduce__(self):
        plain = materialize(self)
        return (type(plain), (plain,))


class LazyMap(_Lazy, Mapping):
    """A read-only dict whose entries are decoded a shard at a time."""

    def __getitem__(self, key):
        try:
            return self._seen[key]
        except (KeyError, TypeError):
            pass
        if self._whole is not None:
            return self._whole[key]
        if type(key) is not str:
            raise KeyError(key)
        n = bisect_right(self._firsts(), key) - 1
        if n < 0:
            raise KeyError(key)
        try:
            shard = self._shard(n)
        except Damaged:
            return self._whole[key]
        self._seen.update(shard)
        return shard[key]

    def get(self, key, default=None):
        """``self[key]``, or ``default`` when there is none (as Mapping's, but an entry of a
        shard already decoded is one dict look-up: the reasoner's hot loops read many).

        >>> core, shards = split({"m": {f"k{i:02}": i for i in range(40)}})
        >>> m = join(core, Source(shards))["m"]
        >>> m.get("k07"), m.get("k07"), m.get("k071"), m.get(["unhashable"], -1), m.decoded  # k071: in k07's shard
        (7, 7, None, -1, 1)
        """
        try:
            return self._seen[key]
        except (KeyError, TypeError):
            pass
        try:
            return self[key]
        except KeyError:
            return default

    def items(self):
        return _Items(self)

    def values(self):
        return _Values(self)

    def passing_items(self):
        """The items, a shard at a time, each shard forgotten once read: a scan of the whole
        map (the export's) in memory that does not grow with it."""
        for shard in self._shard_dicts(keep=False):
            yield from shard.items()

    def _shard_dicts(self, keep: bool = True):
        """The decoded shards in order (then the rebuilt container's rest, after damage)."""
        done = 0
        for n in range(len(self._table)):
            if self._whole is not None:
                break
            try:
                shard = self._shard(n, keep)
            except Damaged:
                break
            yield shard
            done += len(shard)
        if self._whole is not None:
            yield {k: self._whole[k] for k in islice(self._whole, done, None)}

    def _firsts(self) -> list:
        firsts = getattr(self, "_first_keys", None)
        if firsts is None:
            firsts = self._first_keys = [row[0] for row in self._table]
        return firsts

    def _joined(self) -> dict | None:
        """Once every shard is decoded, the whole map as one dict in key order (made when it is
        iterated again: a map read once is not copied), else None."""
        if self._all is None and self._whole is None and len(self._shards) == len(self._table):
            whole: dict = {}
            for i in range(len(self._table)):
                whole.update(self._shards[i])
            self._all = self._seen = whole
        return self._all

    def __iter__(self):  # the rebuilt container holds the same keys in the same order
        whole = self._joined()
        return iter(whole) if whole is not None else self._keys()

    def _keys(self):
        for shard in self._shard_dicts():
            yield from shard

    def __contains__(self, key) -> bool:
        try:
            if key in self._seen:
                return True
        except TypeError:
            pass
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __repr__(self) -> str:
        return f"<LazyMap of {self._size} entries at {'/'.join(map(str, self._path))}>"


class _Items(ItemsView):
    """A lazy map's items, a shard at a time (not a look-up per key, as Mapping's); the whole
    map's, in C, once every shard is decoded."""

    def __iter__(self):
        whole = self._mapping._joined()
        return iter(whole.items()) if whole is not None else self._shard_items()

    def _shard_items(self):
        for shard in self._mapping._shard_dicts():
            yield from shard.items()


class _Values(ValuesView):
    """A lazy map's values, a shard at a time (the whole map's, in C, once decoded)."""

    def __iter__(self):
        whole = self._mapping._joined()
        return iter(whole.values()) if whole is not None else self._shard_values()

    def _shard_values(self):
        for shard in self._mapping._shard_dicts():
            yield from shard.values()


class LazyList(_Lazy, Sequence):
    """A read-only list whose items are decoded a shard at a time."""

    def _decoded(self, n: int, shard) -> None:
        if self._all is None:  # the items decoded so far, in place (a list as long as this one)
            self._all = [_MISSING] * self._size
        first = n * shard_size(self._size)
        self._all[first:first + len(shard)] = shard

    def __getitem__(self, index):
        if type(index) is int and self._all is not None:  # an item decoded already: one look-up
            try:
                item = self._all[index]
            except IndexError:
                pass  # out of range: said below
            else:
                if item is not _MISSING:
                    return item
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        if self._whole is not None:
            return self._whole[index]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("list index out of range")
        try:
            per = shard_size(self._size)
            return self._shard(index // per)[index % per]
        except Damaged:
            return self._whole[index]

    def picked(self, at: list[int]) -> list:
        """``[self[i] for i in at]``: each shard the positions fall in decoded once, then the
        items read without a call each (a ranking reads thousands of a kind's rows).

        >>> core, shards = split({"l": list(range(100))})
        >>> view = join(core, Source(shards))["l"]
        >>> view.picked([3, 97, 4]), view.decoded
        ([3, 97, 4], 2)
        """
        per = shard_size(self._size)
        shards = {i // per for i in at}
        if not shards or min(shards) < 0 or max(shards) >= len(self._table):
            return [self[i] for i in at]  # (a position out of range: the error self[i] gives)
        try:
            for n in shards:
                self._shard(n)
        except Damaged:
            pass
        if self._whole is not None:
            return [self[i] for i in at]
        items = self._all
        return [items[i] for i in at]

    def __iter__(self):
        """The items a shard at a time (the rebuilt list's rest after damage); in C once every
        shard is decoded."""
        if self._all is not None and len(self._shards) == len(self._table):
            return iter(self._all)
        return self._items()

    def _items(self):
        done = 0
        for n in range(len(self._table)):
            if self._whole is not None:
                break
            try:
                shard = self._shard(n)
            except Damaged:
                break
            yield from shard
            done += len(shard)
        if self._whole is not None:
            yield from islice(self._whole, done, None)

    def __eq__(self, other) -> bool:
        if not isinstance(other, (list, LazyList)):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"<LazyList of {self._size} items at {'/'.join(map(str, self._path))}>"
