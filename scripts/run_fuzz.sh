#!/usr/bin/env bash
# Build every libFuzzer target (test/fuzz/*_fuzz.cc) with clang in a separate build
# directory and run each for N seconds.
#
#   scripts/run_fuzz.sh [SECONDS] [TARGET...]     (default: 20 s, all targets)
#
# Env: BUILD_DIR (default <repo>/build-fuzz), CXX (default clang++), FUZZ_JOBS (ninja -j,
# default 2), DELTAGUARD_CORPORA (seeds schema_json_fuzz from real schemaStrings).
# Crash reproducers are written to $BUILD_DIR/fuzz/artifacts/<target>/; the script exits
# non-zero if any target finds a crash or fails to build.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-20}"
shift || true
build="${BUILD_DIR:-$repo/build-fuzz}"
cxx="${CXX:-clang++}"
jobs="${FUZZ_JOBS:-2}"
corpora="${DELTAGUARD_CORPORA:-$repo/../shared/corpora}"

if ! command -v "$cxx" >/dev/null; then
  echo "run_fuzz: $cxx not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
mkdir -p "$build"
CXX="$cxx" cmake -S "$repo" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDELTAGUARD_FUZZ=ON -DDELTAGUARD_BENCH=OFF >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  exit 2
}

if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  targets=()
  for src in "$repo"/test/fuzz/*_fuzz.cc; do
    [[ -e "$src" ]] || continue
    targets+=("$(basename "$src" .cc)")
  done
fi
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "run_fuzz: no test/fuzz/*_fuzz.cc targets" >&2
  exit 2
fi

# Only the fuzz targets and what they link (deltaguard_core), not the whole project.
cmake --build "$build" --parallel "$jobs" --target "${targets[@]}"

# Seeds: test/fuzz/seeds/<target>/ when present; schema_json_fuzz also gets every
# schemaString in the corpora, and commit_json_fuzz the raw commit files.
seed_dir() {
  local target="$1" dir="$build/fuzz/seeds/$1"
  mkdir -p "$dir"
  if [[ -d "$repo/test/fuzz/seeds/$target" ]]; then
    cp -r "$repo/test/fuzz/seeds/$target/." "$dir/"
  fi
  if [[ "$target" == sql_statement_fuzz ]]; then
    # Every statement and query of the golden files, one seed each.
    python3 - "$repo/test/sql" "$dir" <<'PY'
import glob, hashlib, os, sys
root, out = sys.argv[1], sys.argv[2]
for path in glob.glob(os.path.join(root, "**/*.test"), recursive=True):
    lines, sql = open(path, encoding="utf-8").read().split("\n"), None
    for line in lines + [""]:
        if sql is None:
            if line.startswith(("statement ", "query ")):
                sql = []
        elif line.strip() == "" or line.startswith("----"):
            data = "\n".join(sql).encode()
            if data:
                with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as g:
                    g.write(data)
            sql = None
        else:
            sql.append(line)
PY
  fi
  if [[ -d "$corpora" ]]; then
    case "$target" in
      schema_json_fuzz)
        python3 - "$corpora" "$dir" <<'PY'
import glob, hashlib, json, os, sys
root, out = sys.argv[1], sys.argv[2]
for path in glob.glob(os.path.join(root, "**/_delta_log/*.json"), recursive=True):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                action = json.loads(line)
            except ValueError:
                continue
            schema = (action.get("metaData") or {}).get("schemaString")
            if isinstance(schema, str):
                data = schema.encode()
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out, name), "wb") as g:
                    g.write(data)
PY
        ;;
      commit_json_fuzz)
        find "$corpora" -path '*/_delta_log/*.json' -size -64k -print0 |
          while IFS= read -r -d '' f; do
            cp "$f" "$dir/$(echo "$f" | sha1sum | cut -c1-40)"
          done
        ;;
    esac
  fi
  echo "$dir"
}

failed=()
for target in "${targets[@]}"; do
  bin="$build/fuzz/$target"
  seeds="$(seed_dir "$target")"
  work="$build/fuzz/corpus/$target"
  artifacts="$build/fuzz/artifacts/$target/"
  mkdir -p "$work" "$artifacts"
  dict=()
  base="${target%_fuzz}"
  [[ -f "$repo/test/fuzz/$base.dict" ]] && dict=("-dict=$repo/test/fuzz/$base.dict")
  echo "=== $target: ${seconds}s, $(ls "$seeds" | wc -l) seeds," \
    "log $build/fuzz/$target.log"
  if ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
      "$bin" "$work" "$seeds" "${dict[@]}" -max_total_time="$seconds" -max_len=65536 \
      -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$artifacts" >"$build/fuzz/$target.log" 2>&1; then
    grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" \
      "$build/fuzz/$target.log" || true
    echo "=== $target: ok"
  else
    tail -40 "$build/fuzz/$target.log"
    echo "=== $target: FAILED (artifacts in $artifacts)"
    failed+=("$target")
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run_fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}"
  exit 1
fi
echo "run_fuzz: ${#targets[@]} targets ran ${seconds}s each without findings"
