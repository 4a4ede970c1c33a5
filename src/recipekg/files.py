"""Where the bundled ontology and knowledge base live, installed or in a checkout.

    >>> [p.name for p in bundled_files()][:2]       # doctest: +SKIP
    ['dimensions.ttl', 'recipekg.ttl']
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_root() -> Path:
    """The folder holding ``ontology/`` and ``kb/``: inside the wheel, else the checkout."""
    installed = _PACKAGE / "data"
    if (installed / "ontology").is_dir():
        return installed
    checkout = _PACKAGE.parent.parent
    if (checkout / "ontology").is_dir():
        return checkout
    raise FileNotFoundError(f"recipekg data not found in {installed} or {checkout}")


def shapes_file() -> Path:
    return data_root() / "ontology" / "shapes.ttl"


def bundled_files() -> list[Path]:
    """Ontology (without the SHACL shapes) and KB files, in a stable order."""
    root = data_root()
    ontology = sorted(p for p in (root / "ontology").glob("*.ttl") if p.name != "shapes.ttl")
    return ontology + sorted((root / "kb").glob("*.ttl"))
