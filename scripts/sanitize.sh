#!/usr/bin/env bash
# The sanitizer job: builds every gtest binary with AddressSanitizer + UBSan (gcc) in
# build-asan and runs them through ctest. Arrow's wheel libraries are not instrumented,
# so Arrow uses the system allocator here (ARROW_DEFAULT_MEMORY_POOL=system, set by
# ctest) and ASan sees every allocation our code makes.
#
#   scripts/sanitize.sh          # after scripts/setup.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR="${DELTAGUARD_ASAN_BUILD_DIR:-build-asan}"
if [[ ! -f "${BUILD_DIR}/build.ninja" ]]; then
  cmake -S . -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DDELTAGUARD_SANITIZE=ON -DDELTAGUARD_BENCH=OFF
fi
ninja -C "${BUILD_DIR}" ${DELTAGUARD_JOBS:+-j "${DELTAGUARD_JOBS}"}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "${BUILD_DIR}" --output-on-failure -j2 -E "layering_check|format_check"
