#!/usr/bin/env bash
# Runs the browser tests of the Sannin client on a fresh machine: installs Chromium and
# its headless shell (Debian packages), the DejaVu fonts, playwright-core and axe-core
# (npm, from package-lock.json), then runs `node --test`. Needs node >= 20, npm and cargo.
# Usage: e2e/run.sh [test files...]
set -euo pipefail
cd "$(dirname "$0")"

# Debian's Chromium: its headless shell runs most tests, the full browser those of
# notifications (lib/browser.mjs).
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
CHROMIUM_HEADLESS_SHELL_PATH="${CHROMIUM_HEADLESS_SHELL_PATH:-/usr/bin/chromium-headless-shell}"
missing=()
[ -x "$CHROMIUM_PATH" ] || missing+=(chromium)
[ -x "$CHROMIUM_HEADLESS_SHELL_PATH" ] || missing+=(chromium-headless-shell)
if [ ${#missing[@]} -gt 0 ]; then
  echo "e2e: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi
# No CJK font is needed: the client bundles its kanji (static/pieces, static/fonts).
export CHROMIUM_PATH CHROMIUM_HEADLESS_SHELL_PATH

# The site tests run a browser that knows only the DejaVu fonts (no CJK font at all).
if [ ! -d /usr/share/fonts/truetype/dejavu ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-dejavu-core \
    || { $SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-dejavu-core; }
fi

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  npm ci --no-audit --no-fund
fi
# The optional build of the client (esbuild, scripts/build), so that the test of the
# bundled form runs too.
if [ ! -d ../scripts/build/node_modules/esbuild ]; then
  (cd ../scripts/build && npm ci --no-audit --no-fund)
fi

# The server the tests start is the `sannin` binary `cargo test --workspace` builds for
# its own tests (target/debug/sannin): after the Rust tests this build does nothing.
# Building the binary on its own (`cargo build -p sannin`) would resolve the
# dependencies' features without the tests' and compile half the workspace again.
if [ -z "${SANNIN_BIN:-}" ]; then
  (cd .. && cargo test --workspace --no-run)
  SANNIN_BIN="$(cd .. && pwd)/target/debug/sannin"
  export SANNIN_BIN
fi

if [ $# -gt 0 ]; then
  exec node --test --test-concurrency=1 "$@"
fi
# Two files at a time: each starts its own server and browser, and Chromium alone keeps
# both cores of a 2-core machine busy. The longest files start first, so that the run
# does not end with one of them running alone; the others follow in name order.
LONGEST=(correspondence pairing review client play-controls a11y site online room)
files=()
for name in "${LONGEST[@]}"; do files+=("tests/$name.test.mjs"); done
for f in tests/*.test.mjs; do
  [[ " ${files[*]} " == *" $f "* ]] || files+=("$f")
done
exec node --test --test-concurrency=2 "${files[@]}"
