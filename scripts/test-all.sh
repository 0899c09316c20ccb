#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: formatting, lints, the Rust
# unit and integration tests (SQLite and the PostgreSQL on 127.0.0.1:5432), and
# the browser tests in Debian's Chromium. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "PostgreSQL on 127.0.0.1:5432"
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi
pg_isready -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432: the persistence tests need it" >&2; exit 1; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test"
cargo test --workspace

step "browser tests (Chromium + playwright-core)"
bash e2e/run.sh
