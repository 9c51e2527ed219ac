# One resolve function per dependency. Arrow and Parquet come from the pinned pyarrow
# wheel in the project virtualenv (no CMake config ships in the wheel, so we declare
# IMPORTED targets on the versioned .so files; see docs/toolchain notes in ARCHITECTURE.md).

function(resolve_arrow)
  if(NOT DELTAGUARD_PYTHON AND SKBUILD AND Python_EXECUTABLE)
    # pip's build environment holds the pinned pyarrow (build-system.requires).
    set(DELTAGUARD_PYTHON "${Python_EXECUTABLE}")
  elseif(NOT DELTAGUARD_PYTHON)
    set(DELTAGUARD_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
        "Python interpreter whose site-packages holds the pinned pyarrow")
  endif()
  execute_process(
    COMMAND "${DELTAGUARD_PYTHON}" -c
      "import pyarrow as pa; print(pa.get_include()); print(pa.get_library_dirs()[0]); print(pa.__version__)"
    OUTPUT_VARIABLE _pa OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "pyarrow not importable from ${DELTAGUARD_PYTHON}; run scripts/setup.sh")
  endif()
  string(REPLACE "\n" ";" _pa "${_pa}")
  list(GET _pa 0 PA_INC)
  list(GET _pa 1 PA_LIBDIR)
  list(GET _pa 2 PA_VERSION)
  message(STATUS "Arrow C++ from pyarrow ${PA_VERSION} at ${PA_LIBDIR}")
  foreach(lib arrow parquet arrow_compute arrow_acero arrow_dataset)
    file(GLOB _f "${PA_LIBDIR}/lib${lib}.so.[0-9][0-9]*")
    list(FILTER _f EXCLUDE REGEX "\\.so\\.[0-9]+\\.[0-9]")
    if(NOT _f)
      message(FATAL_ERROR "lib${lib}.so.* not found in ${PA_LIBDIR}")
    endif()
    list(GET _f 0 _f)
    add_library(pa::${lib} SHARED IMPORTED GLOBAL)
    set_target_properties(pa::${lib} PROPERTIES IMPORTED_LOCATION "${_f}"
                          INTERFACE_INCLUDE_DIRECTORIES "${PA_INC}")
    # Arrow headers are third-party: do not let their warnings fail our -Werror build.
    set_property(TARGET pa::${lib} PROPERTY INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${PA_INC}")
  endforeach()
  set(PA_LIBDIR "${PA_LIBDIR}" PARENT_SCOPE)
  set(PA_VERSION "${PA_VERSION}" PARENT_SCOPE)
endfunction()

macro(resolve_system_deps)
  find_package(fmt REQUIRED)
  find_package(tl-expected REQUIRED)
  find_package(RapidJSON REQUIRED)
  if(DELTAGUARD_TESTS)
    find_package(GTest REQUIRED)
  endif()
  find_package(roaring REQUIRED)
  set_target_properties(roaring::roaring PROPERTIES IMPORTED_GLOBAL TRUE)
  find_package(Threads REQUIRED)
  # YAML for contract files (contract/yaml_reader.cc is its only user).
  find_package(yaml-cpp REQUIRED)
  # xxHash (contract hashes; header-only: XXH_INLINE_ALL, so nothing to link).
  find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
  # Digests (md5, sha1, sha2) and crc32 of the SQL function library.
  find_package(OpenSSL REQUIRED)
  find_package(ZLIB REQUIRED)
  resolve_datasketches()
endmacro()

# Apache DataSketches C++ (header-only; KLL, HLL and frequent items for column profiles,
# quality/sketches.cc is its only user). Debian 12 does not package it; its source
# release is the PyPI sdist of the `datasketches` package, pinned here by version and
# SHA-256 and fetched at configure time (or taken from DELTAGUARD_DATASKETCHES_DIR, an
# unpacked copy, for offline builds).
function(resolve_datasketches)
  set(DELTAGUARD_DATASKETCHES_DIR "" CACHE PATH
      "An unpacked datasketches 4.1.0 source tree (default: download it)")
  if(DELTAGUARD_DATASKETCHES_DIR)
    set(_dir "${DELTAGUARD_DATASKETCHES_DIR}")
  else()
    include(FetchContent)
    FetchContent_Declare(datasketches
      URL "https://files.pythonhosted.org/packages/8d/f2/32b51b2c805506d3845bf8c8b482325d51420c4d4130f37e04d38076ef43/datasketches-4.1.0.tar.gz"
      URL_HASH SHA256=6a57e4d1e93ccf1035604e3d9181dbe490281673833ce5be477c197b1195c840
      DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
    FetchContent_GetProperties(datasketches)
    if(NOT datasketches_POPULATED)
      FetchContent_Populate(datasketches)
    endif()
    set(_dir "${datasketches_SOURCE_DIR}")
  endif()
  if(NOT EXISTS "${_dir}/kll/include/kll_sketch.hpp")
    message(FATAL_ERROR "datasketches headers not found under ${_dir}")
  endif()
  set(DATASKETCHES_INCLUDE_DIRS "${_dir}/common/include" "${_dir}/kll/include"
      "${_dir}/hll/include" "${_dir}/fi/include" PARENT_SCOPE)
endfunction()

resolve_arrow()
resolve_system_deps()
set(CMAKE_BUILD_RPATH "${PA_LIBDIR}")
set(CMAKE_INSTALL_RPATH "${PA_LIBDIR}")
