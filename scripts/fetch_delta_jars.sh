#!/usr/bin/env bash
# Fetches the Delta Lake jars for the Spark interop tests ONCE through Maven and caches
# them, so that test sessions load them with `spark.jars` and never download at test time.
#
#   scripts/fetch_delta_jars.sh          # prints the jar directory on its last line
#
# What: `mvn dependency:copy-dependencies` on test/interop/pom.xml (io.delta:delta-spark
# for Spark 4.2 / Scala 2.13 and its runtime deps minus what pyspark ships) into
#   ${DELTAGUARD_CACHE:-<repo>/.cache}/delta-jars
# with a stamp (sha256 of the pom); a re-run with an unchanged pom does nothing and touches
# no network. If pyspark is installed in .venv, the script also fails when a fetched jar
# duplicates one in pyspark/jars (two versions of a class on the classpath).
#
# Environment:
#   DELTAGUARD_CACHE   cache root (default: <repo>/.cache, gitignored)
#   MVN                maven binary (default: mvn)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
POM="${REPO_ROOT}/test/interop/pom.xml"
CACHE_ROOT="${DELTAGUARD_CACHE:-${REPO_ROOT}/.cache}"
JAR_DIR="${CACHE_ROOT}/delta-jars"
STAMP="${JAR_DIR}/.stamp"
MVN="${MVN:-mvn}"

want="$(sha256sum "${POM}" | cut -d' ' -f1)"
have="$(cat "${STAMP}" 2>/dev/null || true)"
if [[ "${want}" == "${have}" ]] &&
  compgen -G "${JAR_DIR}/delta-spark_*.jar" >/dev/null; then
  echo "delta jars up to date ($(ls "${JAR_DIR}"/*.jar | wc -l) jars)"
  echo "${JAR_DIR}"
  exit 0
fi

if ! command -v "${MVN}" >/dev/null 2>&1; then
  echo "error: ${MVN} not found; install maven (apt-get install maven) and a JDK 17" >&2
  exit 1
fi

# Fetch into a fresh temporary directory and swap it in only on success, so an
# interrupted run never leaves a half-filled cache behind a valid stamp.
mkdir -p "${CACHE_ROOT}"
tmp="$(mktemp -d "${CACHE_ROOT}/delta-jars.tmp.XXXXXX")"
trap 'rm -rf "${tmp}"' EXIT
# (sed: maven 3.8 prints stray ANSI resets even in batch mode)
"${MVN}" -B -q -Dstyle.color=never -f "${POM}" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="${tmp}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
if ! compgen -G "${tmp}/delta-spark_*.jar" >/dev/null; then
  echo "error: maven produced no delta-spark jar in ${tmp}" >&2
  exit 1
fi

# Overlap check against pyspark's bundled jars (by artifact name, any version).
PYSPARK_JARS="$("${REPO_ROOT}/.venv/bin/python" -c \
  'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))' \
  2>/dev/null || true)"
if [[ -n "${PYSPARK_JARS}" && -d "${PYSPARK_JARS}" ]]; then
  artifact() { basename "$1" .jar | sed -E 's/-[0-9][^-]*(-.*)?$//'; }
  declare -A shipped=()
  for j in "${PYSPARK_JARS}"/*.jar; do shipped["$(artifact "$j")"]=1; done
  dup=()
  for j in "${tmp}"/*.jar; do
    [[ -n "${shipped[$(artifact "$j")]:-}" ]] && dup+=("$(basename "$j")")
  done
  if ((${#dup[@]})); then
    echo "error: jars also shipped by pyspark (add exclusions to ${POM}): ${dup[*]}" >&2
    exit 1
  fi
fi

echo "${want}" >"${tmp}/.stamp"
rm -rf "${JAR_DIR}"
mv "${tmp}" "${JAR_DIR}"
trap - EXIT
echo "fetched $(ls "${JAR_DIR}"/*.jar | wc -l) jars ($(du -sh "${JAR_DIR}" | cut -f1)):" \
  "$(cd "${JAR_DIR}" && ls *.jar | tr '\n' ' ')"
echo "${JAR_DIR}"
