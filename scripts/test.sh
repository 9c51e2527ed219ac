#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls exactly this):
#   1. scripts/setup.sh --dev (idempotent install + build, with tests and benchmarks)
#   2. ctest (C++ unit, corpus and layering tests)
#   3. sanitizer job: the gtest binaries under ASan + UBSan (scripts/sanitize.sh)
#   4. fuzz smoke run (scripts/run_fuzz.sh, when present), a few seconds per target
#   5. pytest: end-to-end tests of the CLI (test/cli) and of the Python package
#      (python/tests)
# Every stage runs even if an earlier one failed (except when setup fails: nothing to
# test then); the exit code is non-zero if any stage failed.
#
# Environment:
#   DELTAGUARD_BUILD_DIR     build directory relative to the repo root (default: build)
#   DELTAGUARD_FUZZ_SECONDS  seconds per fuzz target (default: 15; 0 skips fuzzing)
#   DELTAGUARD_SANITIZE      0 skips the sanitizer job (default: 1)
#   DELTAGUARD_CORPORA       test corpora (default: ../shared/corpora beside the repo)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
export DELTAGUARD_BUILD_DIR="${DELTAGUARD_BUILD_DIR:-build}"
FUZZ_SECONDS="${DELTAGUARD_FUZZ_SECONDS:-15}"
START=$(date +%s)

summary=()
failed=0

# run_stage NAME CMD...: runs CMD, records "NAME ok" or "NAME FAILED (rc=N)".
run_stage() {
  local name="$1"
  shift
  local t0 rc
  t0=$(date +%s)
  printf '\n==> [test] %s: %s\n' "${name}" "$*"
  "$@"
  rc=$?
  if ((rc == 0)); then
    summary+=("${name} ok ($(($(date +%s) - t0))s)")
  else
    summary+=("${name} FAILED (rc=${rc})")
    failed=1
  fi
  return "${rc}"
}

finish() {
  local joined
  joined="$(IFS=';'; echo "${summary[*]}")"
  printf '\n==> test.sh summary (%ss): %s\n' "$(($(date +%s) - START))" "${joined//;/, }"
  # Disk use of the build trees: CI machines have little room (a full-debug-info build
  # once filled one mid-run), so every run reports what it took.
  printf '==> disk: %s; free: %s\n' \
    "$(du -sh "${DELTAGUARD_BUILD_DIR}" build-asan build-fuzz .venv 2>/dev/null | tr '\t\n' ' ;')" \
    "$(df -h --output=avail . 2>/dev/null | tail -1 | tr -d ' ')"
  if ((failed)); then
    echo "==> test.sh: FAILED"
    exit 1
  fi
  echo "==> test.sh: all stages passed"
  exit 0
}

if ! run_stage setup scripts/setup.sh --dev; then
  echo "setup failed: not running the tests" >&2
  finish
fi

run_stage ctest ctest --test-dir "${DELTAGUARD_BUILD_DIR}" --output-on-failure -j2

if [[ "${DELTAGUARD_SANITIZE:-1}" != "0" ]]; then
  run_stage sanitize scripts/sanitize.sh
else
  summary+=("sanitize skipped")
fi

if [[ -f scripts/run_fuzz.sh && "${FUZZ_SECONDS}" != "0" ]]; then
  run_stage fuzz env DELTAGUARD_FUZZ_SECONDS="${FUZZ_SECONDS}" \
    bash scripts/run_fuzz.sh "${FUZZ_SECONDS}"
else
  summary+=("fuzz skipped")
fi

# pytest last, so that its closing line is the last runner summary in the log.
export DELTAGUARD_BIN="${DELTAGUARD_BIN:-${REPO_ROOT}/${DELTAGUARD_BUILD_DIR}/bin/deltaguard}"
run_stage pytest .venv/bin/python -m pytest test/cli python/tests -q -p no:cacheprovider

finish
