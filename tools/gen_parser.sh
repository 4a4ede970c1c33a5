#!/bin/sh
# Regenerate the standalone LALR parser from the grammar:
#
#     sh tools/gen_parser.sh                 # writes src/recipekg/query/_standalone.py
#     sh tools/gen_parser.sh /tmp/out.py     # writes elsewhere (used by the drift test)
#
# Needs lark (pip install -e '.[dev]'); set PYTHON to choose the interpreter (default: the
# project's .venv/bin/python if there is one, else python).
# recipekg.query.parser imports only the generated module, never lark itself.
# lark numbers the LALR states differently from run to run, so two runs can differ in the
# DATA table only; tests/test_parser.py compares the tables up to that renumbering.
set -eu
cd "$(dirname "$0")/.."
OUT="${1:-src/recipekg/query/_standalone.py}"
if [ -z "${PYTHON:-}" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python; fi
fi
"$PYTHON" -m lark.tools.standalone \
    --start start --lexer contextual \
    --out "$OUT" src/recipekg/query/grammar.lark
