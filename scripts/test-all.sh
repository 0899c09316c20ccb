#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: formatting, lints, the Rust
# unit and integration tests (SQLite and the PostgreSQL on 127.0.0.1:5432), and
# the browser tests in Debian's Chromium. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how long the run has taken so far, so that a CI log shows where the time goes.
step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

step "PostgreSQL on 127.0.0.1:5432"
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi
pg_isready -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432: the persistence tests need it" >&2; exit 1; }

step "NATS (JetStream) on 127.0.0.1:4222"
# The cluster tests start several nodes that meet through this NATS server.
nats_up() { (exec 3<>/dev/tcp/127.0.0.1/4222 && head -c 4 <&3 | grep -q INFO) 2>/dev/null; }
if ! nats_up; then
  NATS_BIN="$(command -v nats-server || echo /usr/sbin/nats-server)"
  if [ ! -x "$NATS_BIN" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y nats-server >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y nats-server >/dev/null; } || true
    NATS_BIN="$(command -v nats-server || echo /usr/sbin/nats-server)"
  fi
  if [ -x "$NATS_BIN" ]; then
    mkdir -p /var/lib/nats-server 2>/dev/null || true
    store_dir=/var/lib/nats-server
    [ -w "$store_dir" ] || store_dir="${TMPDIR:-/tmp}/nats-server"
    nohup "$NATS_BIN" -a 127.0.0.1 -p 4222 -js -sd "$store_dir" >"${TMPDIR:-/tmp}/nats-server.log" 2>&1 &
    for _ in $(seq 1 50); do nats_up && break; sleep 0.1; done
  fi
fi
nats_up || { echo "NATS is not reachable on 127.0.0.1:4222: the cluster tests need it (apt-get install nats-server)" >&2; exit 1; }

step "sqlite3 (the backup test runs the documented command)"
if ! command -v sqlite3 >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  apt-get install -y sqlite3 >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y sqlite3 >/dev/null; }
fi
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing: apt-get install sqlite3" >&2; exit 1; }

step "cargo fmt --check"
cargo fmt --all -- --check

# Clippy lints the workspace's own crates while they are compiled for the tests:
# Cargo runs clippy-driver (the compiler with clippy's lints, as `cargo clippy` does)
# around rustc for the workspace's members only, so a clean clone compiles the
# dependencies once, where `cargo clippy` would check them all first and the test
# build then compile them again. `-D warnings` turns clippy's warnings and rustc's
# into errors (registry crates are built with their lints capped, as always). Every
# target is compiled, the benches and examples too, as `cargo clippy --all-targets`
# would check them.
# Where `clippy-driver` is not on the PATH (a toolchain without rustup's proxies),
# `cargo clippy` runs on its own first.
CLIPPY_DRIVER="$(command -v clippy-driver || true)"
if [ -n "$CLIPPY_DRIVER" ]; then
  export RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER"
  export RUSTFLAGS="${RUSTFLAGS:-} -D warnings"
else
  step "cargo clippy -D warnings (clippy-driver is not on the PATH)"
  cargo clippy --workspace --all-targets -- -D warnings
fi
# A clean build gains nothing from incremental compilation's bookkeeping.
export CARGO_INCREMENTAL=0

step "cargo build of every target, with clippy's lints"
cargo test --workspace --all-targets --no-run

step "cargo test"
# PostgreSQL and NATS are up (above): a test that finds either missing fails rather
# than skipping.
export SANNIN_REQUIRE_SERVICES=1
# Four tests per core at a time: most of them wait on sockets, timers and the
# databases. cargo-nextest (where installed) runs the tests of every binary side by
# side, slowest first (.config/nextest.toml); `cargo test` runs one binary after
# another, and nextest does not run the documentation's examples.
TEST_THREADS=$(( $(nproc) * 4 ))
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --test-threads "$TEST_THREADS"
  cargo test --workspace --doc
else
  cargo test --workspace -- --test-threads "$TEST_THREADS"
fi

step "browser tests (Chromium + playwright-core)"
bash e2e/run.sh

step "all green"
