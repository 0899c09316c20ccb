#!/usr/bin/env bash
# Two builds of the server compared under the same conditions: both started at once,
# each on a fresh SQLite file and loaded by its own `sannin loadtest` running alongside
# the other's, so that a machine whose speed drifts from minute to minute slows both
# alike. Prints each server's CPU per accepted action and its act→event p99. Loopback
# only. Usage: bash scripts/loadtest-pair.sh BIN_A BIN_B [loadtest flags]
# (default: --rooms 1667 --plies 20 --think-ms 1000, 5,001 connections each).
# Each server is loaded by its own binary's `loadtest`; with LOADGEN=BIN both are
# loaded by that one, for builds whose load generators differ too.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BIN_A BIN_B [loadtest flags]" >&2; exit 2; }
A=$1 B=$2
shift 2
ARGS=("$@")
[ ${#ARGS[@]} -gt 0 ] || ARGS=(--rooms 1667 --plies 20 --think-ms 1000)
LIMITS=(--rooms-per-minute 0 --bot-rooms-per-minute 0 --max-ws-per-address 0 --max-connections-per-room 6000)
# The per-address caps a build has: off, the load coming from one address (an older
# build may not know them).
limits_of() { # bin
  local help
  help=$("$1" serve --help)
  printf '%s\n' "${LIMITS[@]}"
  for flag in --max-connections-per-address --max-waiting-rooms-per-address; do
    if grep -q -- "$flag" <<<"$help"; then printf '%s\n0\n' "$flag"; fi
  done
}
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

serve() { # bin port name
  local limits
  mapfile -t limits < <(limits_of "$1")
  "$1" serve --addr "127.0.0.1:$2" --database-url "sqlite://$dir/$3.db" "${limits[@]}" \
    >"$dir/$3.log" 2>&1 &
  pids+=($!)
}
serve "$A" 18090 a
serve "$B" 18091 b
for port in 18090 18091; do
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || {
    echo "the server on 127.0.0.1:$port is not answering:" >&2
    cat "$dir"/*.log >&2
    exit 1
  }
done
"${LOADGEN:-$A}" loadtest --addr 127.0.0.1:18090 --server-pid "${pids[0]}" "${ARGS[@]}" >"$dir/a.txt" 2>&1 &
la=$!
"${LOADGEN:-$B}" loadtest --addr 127.0.0.1:18091 --server-pid "${pids[1]}" "${ARGS[@]}" >"$dir/b.txt" 2>&1 &
lb=$!
wait "$la" "$lb"
for side in a b; do
  bin=$A
  [ "$side" = b ] && bin=$B
  echo "$side $bin: $(grep -E 'server CPU|p99|errors' "$dir/$side.txt" | tr '\n' ' ')"
done
