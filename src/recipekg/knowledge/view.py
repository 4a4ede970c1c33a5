"""A typed view of the compiled snapshot for the packages that read it (plan's
:class:`recipekg.plan.kbview.KBView` builds on it): each table's entries by IRI or id, typed by
:mod:`recipekg.contracts.snapshot` for the type checker, and the look-ups every package makes
(an entity's id and label, the IRI of an id, a section's path).

    >>> view = SnapshotView(snap)
    >>> view.iri("lightgbm") == view.choice("lightgbm"), view.node_id(view.iri("lightgbm"))
    (True, 'lightgbm')
    >>> view.dimension("vram")["name"], view.section_path(view.rule(view.rules_of("tier")[0])["section"])
    ('gpu-memory', 'Architecture Decision Tree > Compute budget flowchart')

Lean: the standard library and the snapshot only (the query path may use it).
"""

from __future__ import annotations

from recipekg.knowledge.terms import local_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # the snapshot's types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.snapshot import Condition, Constant, Dimension, Fact, Formula, Node, Paper, Rule, Snapshot


def of_reference(section: str, sections) -> bool:
    """Whether a section is one of the reference's (its parts lead to kb:reference), not one
    the KB keeps for knowledge beyond it ("Beyond the reference").

    >>> sections = snap["sections"]
    >>> of_reference(SnapshotView(snap).rule(SnapshotView(snap).rules_of("tier")[0])["section"], sections)
    True
    >>> of_reference("https://w3id.org/recipekg/section/beyond-reference--fine-tuning", sections)
    False
    """
    seen = set()
    while section in sections and section not in seen:
        seen.add(section)
        section = sections[section]["parent"]
    return section == "https://w3id.org/recipekg/id/reference"


class SnapshotView:
    """Look-ups into one snapshot (a plain object: cheap to make per answer)."""

    def __init__(self, snap: Snapshot):
        #: The snapshot itself, for look-ups the view does not have (untyped: read by key)
        self.snap: Any = snap

    # ------------------------------------------------------------------ entries
    def node(self, iri: str) -> Node:
        return self.snap["nodes"][iri]

    def rule(self, iri: str) -> Rule:
        return self.snap["rules"][iri]

    def condition(self, iri: str) -> Condition:
        return self.snap["conditions"][iri]

    def paper(self, pid: str) -> Paper:
        return self.snap["papers"][pid]

    def constant_by_iri(self, iri: str) -> Constant:
        return self.snap["constants"][iri]

    def formula_by_iri(self, iri: str) -> Formula:
        return self.snap["formulas"][iri]

    def dimension(self, name: str) -> Dimension:
        """A dimension by its name or any of its spellings (KeyError for an unknown one)."""
        dims = self.snap["dimensions"]
        if name in dims:
            return dims[name]
        for dim in dims.values():
            if name in dim["aliases"]:
                return dim
        raise KeyError(name)

    # ------------------------------------------------------------------ names
    def iri(self, node_id: str) -> str | None:
        """The IRI of the entity with this id (None when the KB does not have it)."""
        iri = self.snap["rule_index"]["choices"].get(node_id)
        return iri if iri is not None and self.snap["nodes"][iri]["id"] == node_id else None

    def choice(self, name: str) -> str | None:
        """The IRI a name (an id or an alias) of a choice or value stands for."""
        return self.snap["rule_index"]["choices"].get(name)

    def label(self, iri: str) -> str:
        node = self.snap["nodes"].get(iri)
        return node["label"] if node is not None else local_name(iri)

    def node_id(self, iri: str) -> str:
        node = self.snap["nodes"].get(iri)
        return node["id"] if node is not None else local_name(iri)

    def fact(self, fact_id: str) -> Fact | None:
        """The fact with this id (None when the KB has none): by plan's index of them when the
        snapshot has it (:mod:`recipekg.plan.index`), else the first in the table."""
        index = self.snap.get("plan_index")
        if index is None:
            return next((f for f in self.snap["facts"].values() if f["id"] == fact_id), None)
        iri = index["fact_ids"].get(fact_id)
        return self.snap["facts"][iri] if iri is not None else None

    def section_path(self, section: str | None) -> str | None:
        """A reference section's path (``Compute Budget Planning > ...``), None for no section."""
        found = self.snap["sections"].get(section) if isinstance(section, str) else None
        return found["path"] if found is not None else None

    def rules_of(self, dimension: str) -> list[str]:
        """The rules with a condition on ``dimension``, by IRI (the rule index's)."""
        return list(self.snap["rule_index"]["by_dimension"].get(dimension, ()))
