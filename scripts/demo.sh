#!/usr/bin/env bash
# A two-minute tour of the deltaguard CLI on the bundled example table (examples/orders).
# Builds first if needed (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN="${DELTAGUARD_BIN:-build/bin/deltaguard}"
[[ -x "${BIN}" ]] || scripts/setup.sh
T=examples/orders

show() {
  printf '\n$ deltaguard %s\n' "$*"
  "${BIN}" "$@" || printf '(exit code %s)\n' "$?"
}

show describe "${T}"
show history "${T}"
show scan "${T}" --columns order_id,customer,amount,shipping.city,country --limit 8
show scan "${T}" --version 0 --format csv --limit 3
show describe "${T}" --timestamp 2024-03-02T12:00:00Z --format json
show log "${T}" 3
show scan "${T}" --columns no_such_column
