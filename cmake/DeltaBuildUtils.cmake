# Helpers shared by every module's CMakeLists.

set(DELTAGUARD_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)
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
