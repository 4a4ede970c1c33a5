"""The fast lane's importer: the package's own modules run from their byte-compiled files
without importlib's machinery around them.

Python's import system spends about 280,000 instructions of its own on each module it loads
(the finders of ``sys.meta_path`` and the path hooks, a lock per module, the spec, the cache
checks, all in Python), on top of reading and running the module. A cold ``recipekg plan``
loads some 75 of the package's modules: about a seventh of all it executes
(docs/performance.md, "Wave 4"). While the fast lane answers (:func:`installed`),
``builtins.__import__`` is :func:`_import`, which loads a module of this package (an absolute
name under ``recipekg.``) whose byte-compiled file is current, as importlib checks it (the
interpreter's magic number, a timestamp-based file written for the source's modification
time and size), by the same steps: a module with the ``__spec__``, ``__loader__``,
``__file__``, ``__cached__``, ``__package__`` and ``__path__`` importlib gives it (a
``SourceFileLoader``: resources, ``inspect`` and tracebacks work as before), entered in
``sys.modules`` while it runs, removed if it fails, moved to the end when it has run, and
set on its package. Anything else (another package, a relative import, ``*``, a module
without a current ``.pyc``, a hash-based one, an interpreter run with ``-O``, ``-X
importtime`` or a pycache prefix) is Python's own import, unchanged::

    >>> with installed():
    ...     from recipekg.render import numbers
    ...     import recipekg.version
    >>> numbers.__name__, numbers.__spec__.parent, recipekg.version.__package__
    ('recipekg.render.numbers', 'recipekg.render', 'recipekg')
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys

from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader
from _imp import _fix_co_filename, extension_suffixes
from _io import FileIO

_PREFIX = "recipekg."
_modules = sys.modules
_original = builtins.__import__
_module_type = type(sys)
#: a package directory's file names, and the names of the extension modules among them (which
#: importlib's file finder tries before a .py), read once
_listed: dict[str, tuple[frozenset, frozenset]] = {}
_EXTENSIONS = tuple(extension_suffixes())


class installed:
    """A context: :func:`_import` is ``builtins.__import__`` inside it (when the interpreter
    reads byte-compiled files as :func:`usable` says), Python's own outside."""

    def __enter__(self) -> None:
        self.active = usable() and builtins.__import__ is _original
        if self.active:
            builtins.__import__ = _import

    def __exit__(self, *exc) -> None:
        if self.active and builtins.__import__ is _import:
            builtins.__import__ = _original


def usable() -> bool:
    """Whether importlib would read ``__pycache__/NAME.TAG.pyc`` for a source file: no
    ``-O``, no pycache prefix, a cache tag, and ``-X importtime`` off (so that it still
    lists every module)."""
    return (sys.flags.optimize == 0 and sys.pycache_prefix is None and sys.implementation.cache_tag is not None
            and "importtime" not in sys._xoptions)


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    """``__import__``: the package's modules by :func:`_load`, the rest by Python's own."""
    if level or not name.startswith(_PREFIX) or (fromlist and "*" in fromlist):
        return _original(name, globals, locals, fromlist, level)
    module = _modules.get(name) or _load(name)
    if module is None:
        return _original(name, globals, locals, fromlist, level)
    if not fromlist:
        return _modules[name.partition(".")[0]]
    if hasattr(module, "__path__"):  # from a package: its submodules named there, as importlib
        for x in fromlist:
            if not hasattr(module, x) and (_modules.get(f"{name}.{x}") or _load(f"{name}.{x}")) is None:
                return _original(name, globals, locals, fromlist, level)  # not ours, or no such module
    return module


def _load(name: str):
    """The module ``name`` run from its current byte-compiled file, or None (then Python's
    own import finds, loads or refuses it)."""
    parent_name, _, child = name.rpartition(".")
    parent = _modules.get(parent_name)
    if parent is None:
        _import(parent_name)
        parent = _modules.get(parent_name)
    where = getattr(parent, "__path__", None)
    if not where or type(where) is not list:
        return None
    found = _located(where[0], child)
    if found is None:
        return None
    origin, package, cached = found
    code = _code(origin, cached)
    if code is None:
        return None
    loader = SourceFileLoader(name, origin)
    spec = ModuleSpec(name, loader, origin=origin, is_package=package is not None)
    if package is not None:
        spec.submodule_search_locations = [package]
    spec.has_location = True
    spec.cached = cached
    module = _module_type(name)
    module.__loader__, module.__package__, module.__spec__ = loader, spec.parent, spec
    if package is not None:
        module.__path__ = spec.submodule_search_locations
    module.__file__, module.__cached__ = origin, cached
    parent_spec = getattr(parent, "__spec__", None)
    pending = getattr(parent_spec, "_uninitialized_submodules", None)
    spec._initializing = True
    try:
        _modules[name] = module
        if pending is not None:
            pending.append(child)
        try:
            exec(code, module.__dict__)
        except BaseException:
            _modules.pop(name, None)
            raise
        finally:
            if pending is not None:
                pending.pop()
        module = _modules.pop(name)
        _modules[name] = module
    finally:
        spec._initializing = False
    setattr(parent, child, module)
    return module


def _located(directory: str, child: str) -> tuple[str, str | None, str] | None:
    """``(source file, package directory or None, byte-compiled file)`` of the module
    ``child`` in ``directory`` (a package's own directory), as importlib's file finder
    names them: ``child/__init__.py`` first, then ``child.py``; None when neither is there
    (or an extension module of that name would come first)."""
    listed = _listed.get(directory)
    if listed is None:
        try:
            names = frozenset(os.listdir(directory))
        except OSError:
            return None
        listed = _listed[directory] = (names, frozenset(n[:-len(s)] for n in names if n.endswith(_EXTENSIONS)
                                                        for s in _EXTENSIONS if n.endswith(s)))
    names, extensions = listed
    tag = sys.implementation.cache_tag
    if child in names:
        package = f"{directory}/{child}"
        if os.path.isfile(f"{package}/__init__.py"):
            return f"{package}/__init__.py", package, f"{package}/__pycache__/__init__.{tag}.pyc"
    if f"{child}.py" in names and child not in extensions:
        return f"{directory}/{child}.py", None, f"{directory}/__pycache__/{child}.{tag}.pyc"
    return None


def _code(origin: str, cached: str):
    """The code object of ``cached`` if it is current for ``origin`` (as importlib's
    ``SourceLoader.get_code`` checks a timestamp-based file), else None."""
    try:
        st = os.stat(origin)
        with FileIO(cached) as f:  # unbuffered: io.open_code's is for an embedder's hook, which no executable sets
            data = f.readall()
    except OSError:
        return None
    if (data[:4] != MAGIC_NUMBER or data[4:8] != b"\0\0\0\0"
            or int.from_bytes(data[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != st.st_size & 0xFFFFFFFF):
        return None
    try:
        code = marshal.loads(memoryview(data)[16:])
    except (EOFError, ValueError, TypeError):
        return None  # a damaged file: importlib's own import reports or rewrites it
    _fix_co_filename(code, origin)
    return code
