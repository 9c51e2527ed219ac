# Helpers shared by every module's CMakeLists.

set(DELTAGUARD_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)

# Debug information: line tables only (-g1), compressed (-gz), unless
# DELTAGUARD_FULL_DEBUG_INFO=ON. Line tables are what backtraces, sanitizer reports and
# profiles need; full -g made a development build plus the sanitizer build 11 GB and
# filled CI's disk (the same tree is ~4x smaller with -g1, ~7x with -g1 -gz). The option
# comes after CMAKE_CXX_FLAGS_<CONFIG> on the command line, so it overrides their -g.
option(DELTAGUARD_FULL_DEBUG_INFO "Full -g debug information (for stepping in a debugger)" OFF)
if(NOT DELTAGUARD_FULL_DEBUG_INFO)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-g1 -gz")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-gz")
  check_cxx_source_compiles("int main() { return 0; }" DELTAGUARD_HAVE_GZ)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  add_compile_options(-g1)
  if(DELTAGUARD_HAVE_GZ)
    add_compile_options(-gz)
    add_link_options(-gz)
  endif()
endif()
if(DELTAGUARD_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# delta_add_test(name SOURCES ... LIBS ...): one gtest binary per module, run by ctest.
function(delta_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_compile_options(${name} PRIVATE ${DELTAGUARD_WARNINGS})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/test)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT
    "DELTAGUARD_CORPORA=${CMAKE_SOURCE_DIR}/../shared/corpora;DELTAGUARD_SOURCE_DIR=${CMAKE_SOURCE_DIR};ARROW_DEFAULT_MEMORY_POOL=system")
endfunction()
