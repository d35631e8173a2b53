#!/usr/bin/env bash
# `hopgraph serve` as a user starts it: on a free loopback port over STORE, waited for until
# GET /health answers, asked one question (POST /ask, search mode), then stopped. Exit 0 when the
# question got hits. Step 8 of fresh_install.sh; also runs on its own against any venv:
#
#   bash scripts/serve_smoke.sh VENV_BIN STORE ["QUESTION"]
#   bash scripts/serve_smoke.sh .venv/bin ~/.cache/hopgraph/demo.db
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 VENV_BIN STORE [QUESTION]" >&2; exit 2; }
BIN=$1 STORE=$2 QUESTION=${3:-"Where is High Impact Games based?"}
PY="$BIN/python"
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LOG=$(mktemp -t hopgraph-serve-XXXXXX)
# Loopback needs no token; one in the environment would make the server ask for it.
env -u HOPGRAPH_TOKEN "$BIN/hopgraph" serve --store "$STORE" --host 127.0.0.1 --port "$PORT" --quiet >"$LOG" 2>&1 &
SERVER=$!
stop() {
    kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -f "$LOG"
}
trap stop EXIT

"$PY" - "$PORT" "$SERVER" "$QUESTION" "$LOG" <<'EOF'
import json
import os
import sys
import time
import urllib.request

port, server, question, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
base = f"http://127.0.0.1:{port}"
started = time.monotonic()
while True:  # the embedder and the store's search structures load first
    try:
        with urllib.request.urlopen(f"{base}/health", timeout=2) as reply:
            print(f"GET /health: {reply.status} {json.loads(reply.read())} after {time.monotonic() - started:.1f} s")
            break
    except OSError:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            sys.exit(f"hopgraph serve exited before answering /health:\n{open(log).read()}")
        if time.monotonic() - started > 180:
            sys.exit(f"hopgraph serve did not answer /health in 180 s:\n{open(log).read()}")
        time.sleep(0.3)
body = json.dumps({"question": question, "mode": "search"}).encode()
asked = urllib.request.Request(f"{base}/ask", body, {"Content-Type": "application/json"})
with urllib.request.urlopen(asked, timeout=300) as reply:
    answer = json.loads(reply.read())
    print(f"POST /ask: {reply.status}, {len(answer['hits'])} hits, first {answer['hits'][0]['title']!r}"
          if answer["hits"] else f"POST /ask: {reply.status}, no hits")
    print(f"  answer: {answer['answer']['text'][:160]}")
sys.exit(0 if answer["hits"] else 1)
EOF
