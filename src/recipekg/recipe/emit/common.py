"""What the configuration writers share: reading a recipe answer's values, and the
exception for a recipe with nothing to configure.

    >>> answer = {"sections": [{"name": "stability", "items": [{"hyperparameter": "gradient-clip-norm", "value": 1.0}]}]}
    >>> setting(answer, "gradient-clip-norm"), setting(answer, "learning-rate")
    (1.0, None)
"""

from __future__ import annotations


class Nothing(Exception):
    """The recipe has nothing to configure this trainer with (the message says why)."""


def setting(answer: dict, name: str):
    """The value of hyperparameter ``name`` in the recipe (None when unsourced or absent)."""
    for section in answer["sections"]:
        for it in section["items"]:
            if it.get("hyperparameter") == name and not it.get("unsourced"):
                return it["value"]
    return None


def section_values(answer: dict, name: str) -> list:
    """The values of a section's items (the ids of the choices it lists)."""
    section = next(s for s in answer["sections"] if s["name"] == name)
    return [it["value"] for it in section["items"] if not it.get("unsourced")]
