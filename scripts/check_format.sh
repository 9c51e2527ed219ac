#!/usr/bin/env bash
# Fails when a tracked C++ file is not clang-format clean (.clang-format: Google, 90 cols).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bad=0
count=0
while IFS= read -r f; do
  count=$((count + 1))
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not clang-format clean: $f (run: clang-format -i $f)"
    bad=$((bad + 1))
  fi
done < <(find src tools test bench python \( -name '*.cc' -o -name '*.h' \) -not -path '*/data/*' | sort)
echo "format: ${count} files checked, ${bad} not clean"
[[ ${count} -gt 0 && ${bad} -eq 0 ]]
