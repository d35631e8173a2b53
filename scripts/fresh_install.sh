#!/usr/bin/env bash
# The package as a new user gets it, in a fresh venv in a temporary folder:
#   1. pip install .            (no extras; versions from requirements.lock)
#   2. hopgraph demo            (must run on the core install)
#   3. index a PDF              (without pypdf: must name the `pdf` extra)
#   4. hopgraph serve --help    (without FastAPI: must name the `serve` extra)
#   5. pip install '.[pdf,serve]'
#   6. index the PDF again      (now read)   7. hopgraph serve --help (now the command's help)
#   8. hopgraph serve           (scripts/serve_smoke.sh: on a free loopback port over the demo's
#                                store, GET /health, one POST /ask, stopped)
# Each step prints its exit status and last lines; the summary says ok / names the extra / FAILED.
#
#   bash scripts/fresh_install.sh [--keep]        (PYTHON=python3.11 to choose the interpreter)
# Downloads from PyPI; the first install takes a few minutes.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d -t hopgraph-fresh-XXXXXX)
[ "${1:-}" = "--keep" ] || trap 'rm -rf "$WORK"' EXIT
PY=${PYTHON:-python3}
PDF="$ROOT/tests/data/formats/quarterly_report.pdf"
SUMMARY=()

run() {  # run NAME EXPECT CMD…: EXPECT is "ok" (exit 0) or an extra that the output must name
    local name=$1 expect=$2; shift 2
    local log="$WORK/$name.log" started=$SECONDS
    "$@" >"$log" 2>&1
    local code=$? verdict
    if [ "$expect" = ok ]; then
        [ $code -eq 0 ] && verdict="ok" || verdict="FAILED"
    elif grep -q "pip install 'hopgraph\[$expect\]'" "$log"; then
        verdict="names the $expect extra"
    else
        verdict="FAILED (does not name the $expect extra)"
    fi
    echo "== $name: exit $code, $((SECONDS - started)) s: $verdict"
    grep -v "is ignored: it is neither a file nor a directory" "$log" | tail -n 4 | sed "s/^/   | /"
    SUMMARY+=("$name: $verdict")
}

cd "$WORK" || exit 1
run venv ok "$PY" -m venv "$WORK/venv"
BIN="$WORK/venv/bin"
run "pip install ." ok "$BIN/pip" install --quiet -c "$ROOT/requirements.lock" "$ROOT"
run "no extras installed" ok "$BIN/python" -c "
import importlib.util as u
present = [m for m in ('pypdf', 'docx', 'fastapi', 'uvicorn', 'psycopg', 'langchain_core', 'llama_index', 'mcp')
           if u.find_spec(m)]
print('optional modules present:', present or 'none'); raise SystemExit(bool(present))"
run "hopgraph demo" ok "$BIN/hopgraph" demo --store "$WORK/demo.db" --quiet
run "index a PDF without pypdf" pdf "$BIN/hopgraph" index "$PDF" --store "$WORK/pdf.db"
run "hopgraph serve --help without fastapi" serve "$BIN/hopgraph" serve --help
run "pip install '.[pdf,serve]'" ok "$BIN/pip" install --quiet -c "$ROOT/requirements.lock" "$ROOT[pdf,serve]"
run "index a PDF with pypdf" ok "$BIN/hopgraph" index "$PDF" --store "$WORK/pdf.db"
run "hopgraph serve --help with fastapi" ok "$BIN/hopgraph" serve --help
run "hopgraph serve, health and one question" ok bash "$ROOT/scripts/serve_smoke.sh" "$BIN" "$WORK/demo.db"

echo "== summary ($PY, $("$BIN/python" -c 'import hopgraph; print("hopgraph", hopgraph.__version__)' 2>&1))"
printf '   %s\n' "${SUMMARY[@]}"
[ "${1:-}" = "--keep" ] && echo "   kept: $WORK"
! printf '%s\n' "${SUMMARY[@]}" | grep -q FAILED
