#!/usr/bin/env bash
# Install recipekg (non-editable, with test extras) into .venv, plus the system packages the
# tests drive (a SPARQL server, a browser), then run the whole test suite.
# Usage: bash tools/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need (binaries checked first, so a warm machine skips apt).
APT_PACKAGES="chromium chromium-driver virtuoso-opensource"
missing=""
for pkg in $APT_PACKAGES; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "installing Debian packages:$missing" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# The package with its test extras, and the trainers' parsers for the emitted configurations
# (tests marked trainers): the CPU torch on this disk, DeepSpeed without building its kernels.
DS_BUILD_OPS=0 .venv/bin/python -m pip install -q '.[dev,trainers]'
# On every core (pytest-xdist): the tests that start Virtuoso or Chromium share one worker each
# (conftest.py); `-n 0` as an argument runs in one process.
exec .venv/bin/python -m pytest -n auto --dist loadgroup "$@"
