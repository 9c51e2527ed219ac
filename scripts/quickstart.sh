#!/usr/bin/env bash
# Quick start, command 1 of 2: install everything (apt, pip; only what is missing), build,
# then run the main job on the embedded default: describe and scan the bundled sample
# table examples/orders. Command 2 is scripts/test.sh (the whole test suite).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
BIN="${DELTAGUARD_BUILD_DIR:-build}/bin/deltaguard"
TABLE="${1:-examples/orders}"
printf '\n$ deltaguard describe %s\n' "${TABLE}"
"${BIN}" describe "${TABLE}"
printf '\n$ deltaguard scan %s\n' "${TABLE}"
"${BIN}" scan "${TABLE}"
printf '\nMore: scripts/demo.sh (a tour of every command), deltaguard help\n'
