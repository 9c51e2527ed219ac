#!/usr/bin/env bash
# Installs everything deltaguard needs on Debian 12 and builds it. Idempotent: a second
# run installs nothing, touches the network not at all, and only rebuilds what changed.
#
#   scripts/setup.sh            # from any directory
#
# Environment:
#   DELTAGUARD_BUILD_DIR  build directory relative to the repo root (default: build)
#   DELTAGUARD_JOBS       parallel build jobs passed to ninja (default: ninja's choice)
#   PYTHON                interpreter used to create .venv (default: python3)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
BUILD_DIR="${DELTAGUARD_BUILD_DIR:-build}"
PYTHON="${PYTHON:-python3}"
VENV="${REPO_ROOT}/.venv"
START=$(date +%s)

step() { printf '\n==> [setup %s] %s\n' "$1" "$2"; }

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config python3-venv
  libfmt-dev libexpected-dev rapidjson-dev libgtest-dev libgmock-dev libbenchmark-dev
  libroaring-dev libedit-dev clang clang-format libclang-rt-14-dev time
  openjdk-17-jdk-headless maven  # Spark interop tests (owner: interop)
)

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
step 3/4 "Python packages (requirements.txt)"
STAMP="${VENV}/.deltaguard-requirements.sha256"
want="$( (cat requirements.txt; "${VENV}/bin/python" --version 2>&1) | sha256sum | cut -d' ' -f1)"
have="$(cat "${STAMP}" 2>/dev/null || true)"
if [[ "${want}" == "${have}" ]]; then
  echo "pins unchanged since last install"
else
  "${VENV}/bin/python" -m pip install --disable-pip-version-check -q -r requirements.txt
  echo "${want}" >"${STAMP}"
  echo "installed: $("${VENV}/bin/python" -m pip freeze --disable-pip-version-check | tr '\n' ' ')"
fi

# --- 3b. Delta jars for the Spark interop tests (owner: interop) -------------------------
# Maven fetches them once into .cache/delta-jars (stamped); re-runs touch no network.
step 3b/4 "Delta jars for Spark interop tests (Maven, cached)"
scripts/fetch_delta_jars.sh
# --- end Spark interop ------------------------------------------------------------------

# --- 4. Configure and build --------------------------------------------------------------
step 4/4 "CMake configure + ninja build (${BUILD_DIR})"
if [[ ! -f "${BUILD_DIR}/build.ninja" ]]; then
  cmake -S . -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
else
  echo "already configured (ninja re-runs cmake when CMakeLists change)"
fi
ninja -C "${BUILD_DIR}" ${DELTAGUARD_JOBS:+-j "${DELTAGUARD_JOBS}"}

printf '\n==> setup done in %ss: CLI at %s/bin/deltaguard\n' "$(($(date +%s) - START))" \
  "${BUILD_DIR}"
