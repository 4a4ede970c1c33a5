"""Check the shape of src/recipekg: the rules of docs/architecture.md, measured from the code.

    python tools/check_structure.py            # prints every breach; exit 1 if there is one

What it checks (imports made inside functions count as imports):

- no import cycle between the project's modules;
- no module over 500 lines (the generated parser excepted) and no function over 80 lines;
- no private name (``_x``) imported from, or read off, another project module;
- the lean layers (query, reason, plan, render, formula, the typed contracts, the snapshot
  cache, errors, names, record) import
  only the standard library and each other, so that a query never loads a heavy library.

The test suite runs :func:`breaches` and fails on any.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from recipekg.knowledge.taxonomy import cycles  # (Tarjan's components: the package's, for the broader links too)

ROOT = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "recipekg"
GENERATED = {"recipekg.query._standalone"}
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
LEAN = ("recipekg.errors", "recipekg.names", "recipekg.limits", "recipekg.version", "recipekg.record",
        "recipekg.formula", *(f"recipekg.contracts.{m}" for m in ("common", "errors", "explain", "plan", "recipe",
                                                                    "recommend", "schema", "snapshot", "summary", "tools")), "recipekg.knowledge.terms", "recipekg.query", "recipekg.reason", "recipekg.plan",
        "recipekg.render", "recipekg.knowledge.snapshot", "recipekg.knowledge.shards", "recipekg.knowledge.resources",
        "recipekg.knowledge.view", "recipekg.knowledge.derived")


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every module of the package."""
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _absolute(name: str, level: int, here: str, is_package: bool) -> str:
    if level == 0:
        return name
    base = here.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


class _Imports(ast.NodeVisitor):
    """Every project module a module imports (anywhere), and the private names it takes."""

    def __init__(self, here: str, is_package: bool, known: set[str]):
        self.here, self.is_package, self.known = here, is_package, known
        self.targets: set[str] = set()
        self.third_party: set[str] = set()
        self.private: list[tuple[int, str]] = []
        self.aliases: dict[str, str] = {}

    def _project(self, name: str) -> str | None:
        while name and name not in self.known:
            name = name.rpartition(".")[0]
        return name or None

    def _note(self, name: str, line: int) -> None:
        top = name.split(".")[0]
        if top == PACKAGE:
            found = self._project(name)
            if found and found != self.here:
                self.targets.add(found)
        elif top not in sys.stdlib_module_names and top != "__future__":
            self.third_party.add(top)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._note(a.name, node.lineno)
            if a.asname and a.name.startswith(PACKAGE + "."):
                self.aliases[a.asname] = a.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _absolute(node.module or "", node.level, self.here, self.is_package)
        for a in node.names:
            full = f"{base}.{a.name}"
            if full in self.known:  # a module imported by name
                self._note(full, node.lineno)
                self.aliases[a.asname or a.name] = full
                continue
            self._note(base, node.lineno)
            if a.name.startswith("_") and not a.name.startswith("__") and base.startswith(PACKAGE):
                if self._project(base) != self.here:
                    self.private.append((node.lineno, f"{base}.{a.name}"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if (isinstance(node.value, ast.Name) and node.value.id in self.aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            self.private.append((node.lineno, f"{self.aliases[node.value.id]}.{node.attr}"))
        self.generic_visit(node)


def _is_lean(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in LEAN)


def _long_functions(tree: ast.AST) -> list[tuple[int, str, int]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                out.append((node.lineno, node.name, length))
    return out


def breaches(root: Path = ROOT) -> list[str]:
    """Every breach of the rules, as ``path:line: message`` lines (empty when all hold)."""
    mods = modules(root)
    known = set(mods)
    graph: dict[str, set[str]] = {}
    out: list[str] = []
    for name, path in mods.items():
        rel = path.relative_to(root.parent)
        text = path.read_text(encoding="utf-8")
        if name in GENERATED:
            graph[name] = set()
            continue
        tree = ast.parse(text, filename=str(path))
        visitor = _Imports(name, path.name == "__init__.py", known)
        visitor.visit(tree)
        graph[name] = visitor.targets
        lines = text.count("\n") + (not text.endswith("\n"))
        if lines > MAX_MODULE_LINES:
            out.append(f"{rel}:1: {lines} lines (at most {MAX_MODULE_LINES})")
        for line, fn, length in _long_functions(tree):
            out.append(f"{rel}:{line}: function {fn} has {length} lines (at most {MAX_FUNCTION_LINES})")
        for line, private in visitor.private:
            out.append(f"{rel}:{line}: imports the private name {private}")
        if _is_lean(name):
            for lib in sorted(visitor.third_party):
                out.append(f"{rel}:1: a lean module imports {lib} (only the standard library allowed)")
            for target in sorted(visitor.targets):
                if not _is_lean(target) and target != PACKAGE:
                    out.append(f"{rel}:1: a lean module imports {target}, which is not lean")
    for component in cycles(graph):
        out.append(f"src/{component[0].replace('.', '/')}.py:1: import cycle: {' -> '.join(component)}")
    return out


def main() -> int:
    found = breaches()
    for line in found:
        print(line)
    print(f"{len(found)} breach{'es' * (len(found) != 1)} of the structure rules", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
