"""Where the bundled ontology and knowledge base live, installed or in a checkout.

    >>> [p.name for p in bundled_files()][:4]
    ['bibliography.ttl', 'dimensions.ttl', 'hyperparameters.ttl', 'recipekg.ttl']

The query path uses the ``str`` variants (:func:`bundled_paths`), which need no pathlib.
"""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # recipekg/
_ROOT: list[str] = []


def _data_root() -> str:
    if not _ROOT:
        installed = os.path.join(_PACKAGE, "data")
        checkout = os.path.dirname(os.path.dirname(_PACKAGE))
        if os.path.isdir(os.path.join(installed, "ontology")):
            _ROOT.append(installed)
        elif os.path.isdir(os.path.join(checkout, "ontology")):
            _ROOT.append(checkout)
        else:
            raise FileNotFoundError(f"recipekg data not found in {installed} or {checkout}")
    return _ROOT[0]


def data_root():
    """The folder holding ``ontology/`` and ``kb/``: inside the wheel, else the checkout."""
    from pathlib import Path

    return Path(_data_root())


def shapes_file():
    return data_root() / "ontology" / "shapes.ttl"


def _ttl(folder: str, skip: str = "") -> list[str]:
    with os.scandir(folder) as entries:  # an entry's path is os.path.join(folder, its name), made in C
        return sorted(e.path for e in entries if e.name.endswith(".ttl") and e.name != skip)


def bundled_paths() -> list[str]:
    """:func:`bundled_files` as strings: ontology (without the SHACL shapes), then KB files."""
    root = _data_root()
    return _ttl(os.path.join(root, "ontology"), skip="shapes.ttl") + _ttl(os.path.join(root, "kb"))


def bundled_files() -> list:
    """Ontology (without the SHACL shapes) and KB files, in a stable order (``Path`` objects)."""
    from pathlib import Path

    return [Path(p) for p in bundled_paths()]
