"""Regenerate tests/golden/sparql/*.rq: the SPARQL of the spec's example statements.

Every recommend and explain statement of queries/examples.rkg (the examples of
shared/spec/query-language.md) gets one file, named after the statement. Run it after changing
src/recipekg/sparql/generate.py or a KB file the queries depend on, then read the diff: the golden
files are the reviewed text of the export.

    python tools/gen_sparql_golden.py            # write the files
    python tools/gen_sparql_golden.py --check    # exit 1 if any file would change
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

GOLDEN = ROOT / "tests" / "golden" / "sparql"
EXAMPLES = ROOT / "queries" / "examples.rkg"


def golden_name(statement_text: str) -> str:
    """``recommend fix where symptom = loss-spike`` → ``recommend-fix-where-symptom-loss-spike.rq``."""
    return re.sub(r"[^a-z0-9]+", "-", statement_text.strip().lower()).strip("-") + ".rq"


def golden_queries() -> dict[str, str]:
    """File name → SPARQL text, for every recommend/explain statement of the examples."""
    import recipekg
    from recipekg.query.ast import Plan
    from recipekg.query.parser import parse
    from recipekg.sparql.generate import to_sparql

    snap = recipekg.load().snap
    out = {}
    for statement in parse(EXAMPLES.read_text(encoding="utf-8")):
        if not isinstance(statement, Plan):
            out[golden_name(statement.text)] = to_sparql(statement, snap)
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    queries = golden_queries()
    changed = [name for name, text in queries.items()
               if not (GOLDEN / name).is_file() or (GOLDEN / name).read_text(encoding="utf-8") != text]
    stale = sorted(p.name for p in GOLDEN.glob("*.rq") if p.name not in queries)
    if check:
        for name in changed + stale:
            print(f"out of date: tests/golden/sparql/{name}")
        return 1 if changed or stale else 0
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in changed:
        (GOLDEN / name).write_text(queries[name], encoding="utf-8")
        print(f"wrote tests/golden/sparql/{name}")
    for name in stale:
        (GOLDEN / name).unlink()
        print(f"removed tests/golden/sparql/{name}")
    print(f"{len(queries)} golden queries, {len(changed)} written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
