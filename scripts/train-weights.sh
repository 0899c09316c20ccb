#!/usr/bin/env bash
# Level 5's evaluation weights from scratch: plays the self-play games
# (`tune texel-data`: 2,000 games of three best-reply searchers of 10,000 nodes with
# level 2's variety, seed 1), fits the weights to their results (`tune texel`: 60
# rounds at most, prior 0.03 towards the default weights, on the quiet positions) and compares the result
# with the committed crates/sannin-bot/weights/fitted.txt. About 30 minutes on two
# cores; the samples and weights are the same whatever the number of jobs.
# Usage: bash scripts/train-weights.sh [JOBS] (default: every core).
set -euo pipefail
JOBS=${1:-$(nproc)}
cargo build --release -p sannin-bot --example tune
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
target/release/examples/tune texel-data 2000 1 "$JOBS" "$dir/samples.txt" brs:10000 25
target/release/examples/tune texel "$dir/samples.txt" 60 0.03 "$dir/fitted.txt"
if diff -u crates/sannin-bot/weights/fitted.txt "$dir/fitted.txt"; then
  echo "the committed weights, reproduced"
else
  echo "the fitted weights differ from the committed ones (above)" >&2
  exit 1
fi
