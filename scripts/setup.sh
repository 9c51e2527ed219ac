#!/usr/bin/env bash
# Installs what deltaguard needs on Debian 12 and builds it. Idempotent: a second run
# installs nothing, touches the network not at all, and only rebuilds what changed.
#
#   scripts/setup.sh         # the main job: the library, the CLI and the Python package
#   scripts/setup.sh --dev   # everything the test suite needs too (scripts/test.sh)
#
# The build is one tree (build/): `pip install .` (scikit-build-core) configures and
# builds it and installs the deltaguard package, with its `deltaguard` command, into
# .venv; --dev adds the tests and benchmarks to the same tree.
#
# Environment:
#   DELTAGUARD_BUILD_DIR  build directory relative to the repo root (default: build)
#   DELTAGUARD_JOBS       parallel build jobs (default: the build tool's choice)
#   PYTHON                interpreter used to create .venv (default: python3)
set -euo pipefail

DEV=0
for arg in "$@"; do
  case "${arg}" in
    --dev) DEV=1 ;;
    *) echo "usage: scripts/setup.sh [--dev]" >&2; exit 2 ;;
  esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
BUILD_DIR="${DELTAGUARD_BUILD_DIR:-build}"
PYTHON="${PYTHON:-python3}"
VENV="${REPO_ROOT}/.venv"
START=$(date +%s)

step() { printf '\n==> [setup %s] %s\n' "$1" "$2"; }

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config python3-venv python3-dev
  libfmt-dev libexpected-dev rapidjson-dev libroaring-dev libedit-dev ccache
  libyaml-cpp-dev libxxhash-dev libssl-dev zlib1g-dev tzdata
)
if ((DEV)); then
  APT_PACKAGES+=(
    libgtest-dev libgmock-dev libbenchmark-dev clang clang-format libclang-rt-14-dev time
    openjdk-17-jdk-headless maven  # Spark interop tests (owner: interop)
  )
fi
REQUIREMENTS=requirements.txt
((DEV)) && REQUIREMENTS=requirements-dev.txt

# --- 1. System packages ----------------------------------------------------------------
step 1/4 "System packages (apt)"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("${pkg}")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "all ${#APT_PACKAGES[@]} packages already installed"
else
  echo "missing: ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO=(sudo)
    else
      echo "error: not root and sudo is not available; install as root: ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# --- 2. Python virtualenv ----------------------------------------------------------------
step 2/4 "Python virtualenv (.venv)"
if [[ ! -x "${VENV}/bin/python" ]] || ! "${VENV}/bin/python" -c 'import sys' 2>/dev/null; then
  echo "creating ${VENV} with $(command -v "${PYTHON}")"
  rm -rf "${VENV}"
  "${PYTHON}" -m venv "${VENV}"
else
  echo "${VENV} exists ($("${VENV}/bin/python" --version 2>&1))"
fi

# --- 3. Pinned Python packages -----------------------------------------------------------
step 3/4 "Python packages (${REQUIREMENTS})"
STAMP="${VENV}/.deltaguard-${REQUIREMENTS%.txt}.sha256"
want="$( (cat requirements*.txt; "${VENV}/bin/python" --version 2>&1) | sha256sum | cut -d' ' -f1)"
have="$(cat "${STAMP}" 2>/dev/null || true)"
if [[ "${want}" == "${have}" ]]; then
  echo "pins unchanged since last install"
else
  "${VENV}/bin/python" -m pip install --disable-pip-version-check -q -r "${REQUIREMENTS}"
  echo "${want}" >"${STAMP}"
  echo "installed: $("${VENV}/bin/python" -m pip freeze --disable-pip-version-check | tr '\n' ' ')"
fi

# --- 3b. Delta jars for the Spark interop tests (owner: interop) -------------------------
# Maven fetches them once into .cache/delta-jars (stamped); re-runs touch no network.
if ((DEV)); then
  step 3b/4 "Delta jars for Spark interop tests (Maven, cached)"
  scripts/fetch_delta_jars.sh
fi
# --- end Spark interop ------------------------------------------------------------------

# --- 4. Build and install the package ----------------------------------------------------
# pip builds through scikit-build-core (pyproject.toml) in ${BUILD_DIR}, without build
# isolation (the pinned pyarrow, nanobind and scikit-build-core are in .venv), and
# installs deltaguard into .venv. The CLI is also at ${BUILD_DIR}/bin/deltaguard.
step 4/4 "Build (${BUILD_DIR}) and install the deltaguard package into .venv"
ON_OFF=OFF
((DEV)) && ON_OFF=ON
if [[ -n "${DELTAGUARD_JOBS:-}" ]]; then
  export CMAKE_BUILD_PARALLEL_LEVEL="${DELTAGUARD_JOBS}"
fi
"${VENV}/bin/python" -m pip install --disable-pip-version-check -q --no-build-isolation \
  --no-deps --no-index --force-reinstall \
  -C build-dir="${BUILD_DIR}" \
  -C cmake.define.DELTAGUARD_TESTS="${ON_OFF}" -C cmake.define.DELTAGUARD_BENCH="${ON_OFF}" \
  -C build.verbose=false .
"${VENV}/bin/python" -c 'import deltaguard' || {
  echo "error: the deltaguard package was built but does not import" >&2
  exit 1
}

printf '\n==> setup done in %ss: CLI at %s/bin/deltaguard, package in .venv\n' \
  "$(($(date +%s) - START))" "${BUILD_DIR}"
