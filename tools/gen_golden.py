"""Write queries/<name>.expected.txt and .expected.json: the text (with --detail: the whole
answer) and JSON answers to every statement of queries/<name>.rkg.

Run after a deliberate change of the KB or the renderer, then READ the diff before
committing (`git diff queries/`): tests/test_golden_answers.py compares against these files.

    python tools/gen_golden.py            # all files
    python tools/gen_golden.py training   # one file
"""
import sys
from pathlib import Path

import recipekg
from recipekg.render.answers import render_answers

QUERIES = Path(__file__).resolve().parents[1] / "queries"
FORMATS = {"text": ".expected.txt", "json": ".expected.json"}


def golden(kb, path: Path, fmt: str = "text") -> str:
    answers = kb.query(path.read_text(encoding="utf-8"))
    return render_answers(answers, fmt, detail=True) + "\n"  # the whole text: every rule and source


def main(names):
    kb = recipekg.load()
    for path in sorted(QUERIES.glob("*.rkg")):
        if names and path.stem not in names:
            continue
        for fmt, suffix in FORMATS.items():
            target = path.with_suffix(suffix)
            target.write_text(golden(kb, path, fmt), encoding="utf-8")
            print("wrote", target.name)


if __name__ == "__main__":
    main(sys.argv[1:])
