#!/usr/bin/env bash
# The package as CI ships it: build the sdist and the wheel (python -m build), check them (twine
# check), install the wheel into a fresh venv (versions from requirements.lock) and run a smoke step:
# `hopgraph --version`, `python -m hopgraph --version`, then index the supplier notes
# (examples/suppliers/docs) and ask them a question, all from the installed wheel, outside the checkout.
#
#   bash scripts/wheel_check.sh [--keep]     (PYTHON: the interpreter with build and twine, the dev extra)
# The fresh venv's install downloads from PyPI (a few minutes the first time).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d -t hopgraph-wheel-XXXXXX)
[ "${1:-}" = "--keep" ] || trap 'rm -rf "$WORK"' EXIT
PY=${PYTHON:-python3}
step() { echo "== $*"; }

step "build: sdist and wheel from a copy of the checkout (no build/ or *.egg-info left in it)"
mkdir "$WORK/source"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard src pyproject.toml README.md LICENSE | xargs -0 cp --parents -t "$WORK/source")
"$PY" -m build --outdir "$WORK/dist" "$WORK/source" >"$WORK/build.log" 2>&1 || { tail -n 30 "$WORK/build.log"; exit 1; }
ls -l "$WORK/dist" | sed 's/^/   /'

step "twine check"
"$PY" -m twine check --strict "$WORK"/dist/*

step "install the wheel into a fresh venv"
"$PY" -m venv "$WORK/venv"
BIN="$WORK/venv/bin"
"$BIN/pip" install --quiet -c "$ROOT/requirements.lock" "$WORK"/dist/hopgraph-*.whl

step "smoke: the installed command"
cd "$WORK"  # away from the checkout: only the installed wheel can answer
WANT=$("$BIN/python" -c 'from importlib.metadata import version; print("hopgraph", version("hopgraph"))')
[ "$("$BIN/hopgraph" --version)" = "$WANT" ] && [ "$("$BIN/python" -m hopgraph --version)" = "$WANT" ]
echo "   $WANT (hopgraph --version, python -m hopgraph --version)"
"$BIN/hopgraph" index "$ROOT/examples/suppliers/docs" --store "$WORK/smoke.db" --quiet
"$BIN/hopgraph" ask "Where is Anvaya Foundry's plant?" --store "$WORK/smoke.db" --quiet | tee "$WORK/ask.log" | head -n 5
grep -q "Hosur" "$WORK/ask.log"
step "ok: built, checked, installed, answered"
