#!/usr/bin/env bash
# Runs the browser tests of the Sannin client on a fresh machine: installs Chromium
# (Debian package), the DejaVu fonts, playwright-core and axe-core (npm, from
# package-lock.json), then runs `node --test`. Needs node >= 20, npm and cargo.
# Usage: e2e/run.sh [test files...]
set -euo pipefail
cd "$(dirname "$0")"

CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM_PATH" ]; then
  echo "e2e: installing chromium" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
# No CJK font is needed: the client bundles its kanji (static/pieces, static/fonts).
export CHROMIUM_PATH

# The site tests run a browser that knows only the DejaVu fonts (no CJK font at all).
if [ ! -d /usr/share/fonts/truetype/dejavu ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-dejavu-core \
    || { $SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-dejavu-core; }
fi

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  npm ci --no-audit --no-fund
fi

# Build the server once up front so that the tests' own build is a no-op. The `test`
# profile is the one `cargo test` builds with: after the Rust tests, only the binary's
# own crate is compiled again, not the whole workspace in a profile of its own.
if [ -z "${SANNIN_BIN:-}" ]; then
  (cd .. && cargo build --profile test -p sannin)
fi

if [ $# -gt 0 ]; then
  exec node --test --test-concurrency=1 "$@"
fi
# Two files at a time: a file starts its own server and browser, and most of a browser
# test's time is spent waiting for the page or the server, not computing.
exec node --test --test-concurrency=2 tests/*.test.mjs
