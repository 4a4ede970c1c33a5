#!/usr/bin/env bash
# Install recipekg (non-editable, with test extras) into .venv and run the whole test suite.
# Usage: bash tools/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q '.[dev]'
exec .venv/bin/python -m pytest "$@"
