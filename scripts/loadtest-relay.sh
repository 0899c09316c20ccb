#!/usr/bin/env bash
# The server against the floor: a fresh `sannin serve` (SQLite, per-address budgets
# off) and a bare `sannin relay` (no rules, no storage, no clocks), loaded in one run
# of `sannin loadtest --baseline`: the same load against the relay first, then the
# server, then the server's CPU per action and latency as ratios to the relay's.
# Loopback only. Usage: bash scripts/loadtest-relay.sh [BIN] [loadtest flags]
# (default BIN target/release/sannin; default flags --rooms 3334 --plies 20
# --think-ms 1000, 10,002 connections). The servers use their default worker threads;
# SERVE_FLAGS adds to the server's flags.
set -euo pipefail
BIN=target/release/sannin
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then BIN=$1; shift; fi
ARGS=("$@")
[ ${#ARGS[@]} -gt 0 ] || ARGS=(--rooms 3334 --plies 20 --think-ms 1000)
ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d)
pids=()
# The servers are waited for, so that a run right after this one finds their ports free.
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
# shellcheck disable=SC2086
"$BIN" serve --addr 127.0.0.1:18080 --database-url "sqlite://$dir/s.db" \
  --rooms-per-minute 0 --bot-rooms-per-minute 0 --max-ws-per-address 0 --max-connections-per-address 0 \
  --spectators-per-address 0 --states-per-minute 0 ${SERVE_FLAGS:-} >"$dir/serve.log" 2>&1 &
pids+=($!)
"$BIN" relay --addr 127.0.0.1:18081 >"$dir/relay.log" 2>&1 &
pids+=($!)
for check in 18080/healthz:serve 18081/metrics:relay; do
  path=${check%:*} name=${check#*:}
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$path" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$path" >/dev/null || {
    echo "sannin $name is not answering on 127.0.0.1:${path%%/*}:" >&2
    cat "$dir/$name.log" >&2
    exit 1
  }
done
"$BIN" loadtest --addr 127.0.0.1:18080 --server-pid "${pids[0]}" \
  --baseline 127.0.0.1:18081 "${ARGS[@]}"
