# aw_target(NAME): the project's own warning and sanitizer flags, applied per target so that
# third-party headers keep their own rules.
function(aw_target name)
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror)
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  if(AW_SANITIZE)
    target_compile_options(${name} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(${name} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# aw_test_library(NAME SOURCES... LIBS ...): a fixture several test executables share (a fake
# server, a forge or container fixture), compiled once into a static library instead of once per
# executable that lists its .cc (issue 37: each was compiled up to five times).
function(aw_test_library name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${name} STATIC ${T_SOURCES})
  aw_target(${name})
  target_link_libraries(${name} PUBLIC ${T_LIBS} GTest::gtest)
  target_compile_definitions(${name} PRIVATE
    AW_BINARY_DIR="${PROJECT_BINARY_DIR}" AW_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()

# aw_test(NAME SOURCES... LIBS ...): one GoogleTest executable registered with ctest.
function(aw_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  aw_target(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    AW_BINARY_DIR="${PROJECT_BINARY_DIR}" AW_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  aw_test_pch_use(${name})  # one precompiled header for every test (cmake/build_speed.cmake)
  aw_test_unity(${name})  # AW_UNITY: its files compiled a batch to a source (cmake/build_speed.cmake)
  include(GoogleTest)
  # A suite named HostWide* changes state the whole machine shares (a sysctl such as
  # fs.protected_symlinks, which scripts/test sets to 1 before ctest) and puts it back: ctest runs
  # it alone, so no test beside it reads the changed value.
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
    TEST_FILTER "-HostWide*" PROPERTIES TIMEOUT 600)
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
    TEST_FILTER "HostWide*" PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE)
endfunction()
