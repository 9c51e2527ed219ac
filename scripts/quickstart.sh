#!/usr/bin/env bash
# Quick start, command 1 of 2: install what the main job and the Python package need
# (apt, pip; only what is missing), build, then run the main job on the embedded default:
# describe and scan the bundled sample table examples/orders, land two CSV drops
# (examples/incoming) into a local table under build/quickstart, the second with a new
# column (seen coming with `drift`), write them to silver under a data contract
# (examples/contracts), and read bronze from Python (examples/quickstart.py). Command 2 is scripts/test.sh
# (the whole test suite; it installs the test-only dependencies).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
BIN="${DELTAGUARD_BUILD_DIR:-build}/bin/deltaguard"
TABLE="${1:-examples/orders}"
printf '\n$ deltaguard describe %s\n' "${TABLE}"
"${BIN}" describe "${TABLE}"
printf '\n$ deltaguard scan %s\n' "${TABLE}"
"${BIN}" scan "${TABLE}"

# The day a source schema changes: land two daily CSV drops into a local table; the
# second brings a new column, which is refused until the write asks for evolution.
WAREHOUSE="${DELTAGUARD_QUICKSTART_DIR:-build/quickstart}"
BRONZE="${WAREHOUSE}/bronze_orders"
rm -rf "${BRONZE}"
mkdir -p "${WAREHOUSE}"
step() { printf '\n$ deltaguard %s\n' "$*"; "${BIN}" "$@"; }
step create "${BRONZE}" --schema \
  'order_id BIGINT NOT NULL, customer STRING, amount DECIMAL(10,2), country STRING, ordered_at TIMESTAMP' \
  --partition-by country
step write "${BRONZE}" examples/incoming/orders_2024-04-01.csv
# See the change coming: the second drop against the table, change by change.
printf '\n$ deltaguard drift %s examples/incoming/orders_2024-04-02_coupon.csv\n' "${BRONZE}"
"${BIN}" drift "${BRONZE}" examples/incoming/orders_2024-04-02_coupon.csv --fail-on any ||
  printf '(exit code %s: the drop changes the schema)\n' "$?"
printf '\n$ deltaguard write %s examples/incoming/orders_2024-04-02_coupon.csv\n' "${BRONZE}"
if "${BIN}" write "${BRONZE}" examples/incoming/orders_2024-04-02_coupon.csv; then
  echo "unexpected: a new column was accepted without --merge-schema" >&2
  exit 1
fi
printf '(refused as intended: nothing was committed)\n'
step write "${BRONZE}" examples/incoming/orders_2024-04-02_coupon.csv --merge-schema
step scan "${BRONZE}"
step history "${BRONZE}"

# Silver is a promise: the contract is a file; the write conforms the drops to it (the
# coupon is ignored with a warning), and the table is tested and made to carry it.
SILVER="${WAREHOUSE}/silver_orders"
CONTRACT=examples/contracts/silver_orders.odcs.yaml
rm -rf "${SILVER}"
step contract lint "${CONTRACT}"
step write "${SILVER}" examples/incoming/orders_2024-04-01.csv \
  examples/incoming/orders_2024-04-02_coupon.csv --contract "${CONTRACT}"
step contract test "${SILVER}" --contract "${CONTRACT}"
step contract apply "${SILVER}" "${CONTRACT}"

printf '\n$ .venv/bin/python examples/quickstart.py %s\n' "${BRONZE}"
.venv/bin/python examples/quickstart.py "${BRONZE}"

printf '\nMore: scripts/demo.sh (a tour of every command), deltaguard help\n'
