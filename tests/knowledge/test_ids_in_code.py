"""Every KB id the code names exists in the bundled KB: each constant symbol, formula, entity,
fact and constant quantity the look-ups of plan, recipe and reason ask for (a string, a module
constant, a table of them), each formula asked for by its output and inputs, each IRI built
from an id, and each ``RKG.term`` of the ontology the code reads. Checked here, from the code,
rather than when some plan first takes the step that asks (issue 26)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import REPO

SRC = REPO / "src" / "recipekg"
#: Look-ups by what they name: method name → the kind of id its first argument is.
BY_FIRST = {"constant": "symbol", "q": "symbol", "by_id": "formula", "iri": "node", "fact": "fact"}
KB_IRI = "https://w3id.org/recipekg/id/"


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name != "_standalone.py":
            out[".".join(path.relative_to(SRC.parent).with_suffix("").parts)] = ast.parse(path.read_text("utf-8"))
    return out


MODULES = _modules()


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    """A module's top-level ``NAME = <literal>`` assignments."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
    return out


CONSTANTS = {name: _constants(tree) for name, tree in MODULES.items()}


def _imported(module: str) -> dict[str, tuple[str, str]]:
    """``from m import X`` in a module: X → (m, X)."""
    out = {}
    for node in ast.walk(MODULES[module]):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("recipekg"):
            for a in node.names:
                out[a.asname or a.name] = (node.module, a.name)
    return out


IMPORTS = {name: _imported(name) for name in MODULES}


def strings(node: ast.expr, module: str) -> list[str]:
    """The strings an expression may stand for: a literal, a module constant (followed through
    imports), an item of a table of them (``ADAPTERS[mid][2]``: the third of each row), both
    branches of a conditional; [] for anything computed."""
    return [c.value for c in _candidates(node, module, 0) if isinstance(c, ast.Constant) and isinstance(c.value, str)]


def _candidates(node: ast.expr, module: str, depth: int) -> list[ast.expr]:
    if depth > 6:
        return []
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS[module]:
            return _candidates(CONSTANTS[module][node.id], module, depth + 1)
        if node.id in IMPORTS[module]:
            source, name = IMPORTS[module][node.id]
            if source in CONSTANTS and name in CONSTANTS[source]:
                return _candidates(CONSTANTS[source][name], source, depth + 1)
        return []
    if isinstance(node, ast.IfExp):
        return _candidates(node.body, module, depth + 1) + _candidates(node.orelse, module, depth + 1)
    if isinstance(node, ast.Subscript):
        index = node.slice.value if isinstance(node.slice, ast.Constant) else None
        out = []
        for table in _candidates(node.value, module, depth + 1):
            if isinstance(table, ast.Dict):
                rows = [v for k, v in zip(table.keys, table.values)
                        if index is None or isinstance(index, int) or (isinstance(k, ast.Constant) and k.value == index)]
                out += [r for v in rows for r in _candidates(v, module, depth + 1)]
            elif isinstance(table, (ast.Tuple, ast.List)):
                out += ([table.elts[index]] if isinstance(index, int) and -len(table.elts) <= index < len(table.elts)
                        else [r for e in table.elts for r in _candidates(e, module, depth + 1)])
        return out
    return [node]


def lookups() -> list[tuple[str, str, str, int]]:
    """``(kind, id, module, line)`` for every id the code looks up in the KB."""
    found = []
    for module, tree in MODULES.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
                continue
            name, receiver = node.func.attr, ast.unparse(node.func.value)
            kinds = []
            if name in BY_FIRST and (receiver.endswith("kb") or name in ("constant", "by_id")):
                kinds = [(BY_FIRST[name], node.args[0])]
            elif name == "formula" and receiver.endswith("memo"):
                kinds = [("formula", node.args[0])]
            elif name == "constants_for" and len(node.args) > 1:
                kinds = [("quantity", node.args[1])]
            elif name == "formula" and receiver.endswith("kb") and all(isinstance(a, ast.Constant) for a in node.args):
                kinds = [("formula-of", ast.Tuple(elts=node.args))]
            for kind, arg in kinds:
                if kind == "formula-of":
                    found.append((kind, " ".join(a.value for a in arg.elts), module, node.lineno))
                    continue
                found += [(kind, s, module, node.lineno) for s in strings(arg, module)]
        for node in ast.walk(tree):  # IRIs built from an id: _KB + "gradient-descent"
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name) \
                    and strings(node.left, module) == [KB_IRI]:
                found += [("node-iri", s, module, node.lineno) for s in strings(node.right, module)]
    return found


FOUND = lookups()


@pytest.fixture(scope="module")
def tables(kb):
    snap = kb.snap
    formulas = list(snap["formulas"].values())
    return {
        "symbol": {c["symbol"] for c in snap["constants"].values() if c["symbol"]},
        "formula": {f["id"] for f in formulas},
        "node": set(snap["rule_index"]["choices"]) | {n["id"] for n in snap["nodes"].values()},
        "fact": {f["id"] for f in snap["facts"].values()},
        "quantity": {c["quantity"] for c in snap["constants"].values()},
        "node-iri": {iri[len(KB_IRI):] for iri in snap["nodes"] if iri.startswith(KB_IRI)},
        "formulas": formulas,
    }


def test_the_code_names_many_kb_ids():
    """The scan finds the look-ups (not a vacuous pass): at least the 33 ids issue 26 counted
    in plan's code, of every kind."""
    assert len({(k, i) for k, i, _, _ in FOUND}) >= 33
    assert {k for k, *_ in FOUND} >= {"symbol", "formula", "node", "fact", "quantity", "formula-of", "node-iri"}


def test_every_kb_id_named_in_code_exists(tables):
    missing = []
    for kind, name, module, line in FOUND:
        if kind == "formula-of":
            output, *inputs = name.split()
            ok = any(f["output"] == output and set(inputs) <= set(f.get("names") or _names(f)) for f in tables["formulas"])
        else:
            ok = name in tables[kind]
        if not ok:
            missing.append(f"{module}:{line}: {kind} {name!r}")
    assert missing == []


def _names(formula: dict) -> set[str]:
    from recipekg.formula.expr import formula_of

    return set(formula_of(formula).names) if formula.get("expression") else set()


def test_every_ontology_term_named_in_code_exists():
    """Each ``RKG.term`` the code reads is declared by the ontology or used by the KB (a
    misspelt term would read nothing, silently)."""
    import rdflib

    from recipekg.knowledge.resources import bundled_paths
    from recipekg.knowledge.terms import RKG

    graph = rdflib.Graph()
    for path in bundled_paths():
        graph.parse(path, format="turtle")
    known = {str(t) for triple in graph for t in triple if isinstance(t, rdflib.URIRef)}
    used = {(module, node.attr, node.lineno) for module, tree in MODULES.items() for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "RKG"}
    assert len(used) > 50
    missing = sorted(f"{m}:{line}: RKG.{term}" for m, term, line in used if str(RKG) + term not in known)
    assert missing == []
