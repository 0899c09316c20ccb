#!/usr/bin/env bash
# The added latency of a cross-node hop: the load test against one node, then against
# two nodes of a cluster (connections spread over both), then against a single node
# without NATS, each on a fresh PostgreSQL database on 127.0.0.1:5432, with the NATS on
# 127.0.0.1:4222. Loopback only. Usage: bash scripts/loadtest-cluster.sh [loadtest flags]
# (default: --rooms 200 --plies 20 --think-ms 500).
set -euo pipefail
export PGOPTIONS="-c client_min_messages=warning"
cd "$(dirname "$0")/.."
BIN=${SANNIN_BIN:-target/release/sannin}
[ -x "$BIN" ] || cargo build --release -p sannin
ARGS=("$@")
[ ${#ARGS[@]} -gt 0 ] || ARGS=(--rooms 200 --plies 20 --think-ms 500)
LIMITS=(--rooms-per-minute 0 --bot-rooms-per-minute 0 --max-ws-per-address 0 --max-connections-per-address 0)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

fresh_db() {
  local name="sannin_load_$$_$1"
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" postgres
  psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $name" postgres
  echo "postgres://postgres@127.0.0.1:5432/$name"
}

node() { # port db [extra flags]
  local port=$1 db=$2; shift 2
  RUST_LOG=warn "$BIN" serve --addr "127.0.0.1:$port" --database-url "$db" "${LIMITS[@]}" "$@" &
  pids+=($!)
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return; sleep 0.1; done
  echo "node on $port did not start" >&2; exit 1
}

stop_nodes() { cleanup; wait 2>/dev/null || true; pids=(); }

prefix="load$$"
echo "== one node of a cluster (every connection on the room's owner)"
db=$(fresh_db a)
node 18081 "$db" --nats-url nats://127.0.0.1:4222 --nats-prefix "${prefix}a"
"$BIN" loadtest --addr 127.0.0.1:18081 "${ARGS[@]}"
stop_nodes

echo "== two nodes (rooms made on the first, connections spread over both)"
db=$(fresh_db b)
node 18081 "$db" --nats-url nats://127.0.0.1:4222 --nats-prefix "${prefix}b"
node 18082 "$db" --nats-url nats://127.0.0.1:4222 --nats-prefix "${prefix}b"
"$BIN" loadtest --addr 127.0.0.1:18081,127.0.0.1:18082 "${ARGS[@]}"
stop_nodes

echo "== a single node without NATS"
db=$(fresh_db c)
node 18081 "$db"
"$BIN" loadtest --addr 127.0.0.1:18081 "${ARGS[@]}"
stop_nodes

for x in a b c; do
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS sannin_load_$$_$x WITH (FORCE)" postgres
done
