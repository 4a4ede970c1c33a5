"""Write queries/<name>.expected.txt: the text answer to every statement of queries/<name>.rkg.

Run after a deliberate change of the KB or the renderer, then READ the diff before
committing (`git diff queries/`): tests/test_queries.py compares against these files.

    python tools/gen_golden.py            # all files
    python tools/gen_golden.py training   # one file
"""
import sys
from pathlib import Path

import recipekg
from recipekg.render import render_answers

QUERIES = Path(__file__).resolve().parents[1] / "queries"


def golden(kb, path: Path) -> str:
    return render_answers(kb.query(path.read_text(encoding="utf-8")), "text") + "\n"


def main(names):
    kb = recipekg.load()
    for path in sorted(QUERIES.glob("*.rkg")):
        if names and path.stem not in names:
            continue
        path.with_suffix(".expected.txt").write_text(golden(kb, path), encoding="utf-8")
        print("wrote", path.with_suffix(".expected.txt").name)


if __name__ == "__main__":
    main(sys.argv[1:])
