# How fast a tree builds (issue 37; bench/build/run measures it). Nothing here changes what the
# binaries do. scripts/build turns both on for the debug tree:
#   AW_SPLIT_DWARF  -gsplit-dwarf: each object's debug info goes to a .dwo beside it, which the
#                   compiler writes faster and the linker never reads (gdb still finds it).
#   AW_LINKER       the linker the GCC driver picks (-fuse-ld=NAME), e.g. mold: several times
#                   faster than ld.bfd at linking the tests' executables. Checked before use.
# The Release tree keeps Debian's ld.bfd and no split DWARF: what packagers build with.
# scripts/build-release (batches of 8) and scripts/build (batches of 4) turn on:
#   AW_UNITY        a unity build of src/ (its libraries, the awaywork binary and the static
#                   helpers) and of each test executable (aw_test_unity below; never bench/ or
#                   fuzz/, one file a program there): CMake compiles each target's .cc files
#                   AW_UNITY_BATCH at a time as one source that #includes them, so nlohmann/json,
#                   fmt, spdlog and Boost are parsed, and their templates instantiated, once a
#                   batch instead of once a file. Editing one file recompiles its whole batch, so
#                   the debug tree (the edit-and-test loop) keeps batches small. The files of one
#                   target then share a translation unit: file-local helpers (anonymous namespace,
#                   `static`) need names of their own within the target, or one file's would clash
#                   with, or quietly overload, another's. A file that cannot share one
#                   sets SKIP_UNITY_BUILD_INCLUSION; CMake also leaves out any file with its own
#                   COMPILE_OPTIONS.
# Always, in every tree: Boost.Asio and Boost.Beast compiled once, in src/net/boost_impl.cc,
# instead of their non-template code in every file that includes them (the demo's slowest
# compiles were the four files that speak HTTP; each also compiled the libraries' .ipp files).
# Any target that includes Asio or Beast links aw_net, which holds that code.
add_compile_definitions(BOOST_ASIO_SEPARATE_COMPILATION BOOST_BEAST_SEPARATE_COMPILATION)

option(AW_SPLIT_DWARF "Debug info in .dwo files beside the objects (faster compiles and links)" OFF)
set(AW_LINKER "" CACHE STRING "The linker for every target (-fuse-ld=NAME: mold, lld, gold); empty: the compiler's default")
option(AW_UNITY "Unity build of src/ and the tests (batches of AW_UNITY_BATCH files per compile)" OFF)
set(AW_UNITY_BATCH 8 CACHE STRING "Files per unity source when AW_UNITY is on")

# aw_unity_here(): called by src/CMakeLists.txt before its targets. A macro, so that the variables
# (which CMake reads when a target is created) are set in src/'s scope and its subfolders' only:
# tests/, bench/ and fuzz/ are siblings of src/, configured after it, and never see them (a test
# executable turns unity on for itself, aw_test_unity; a test's fixture library does not).
macro(aw_unity_here)
  if(AW_UNITY)
    set(CMAKE_UNITY_BUILD ON)
    set(CMAKE_UNITY_BUILD_BATCH_SIZE ${AW_UNITY_BATCH})
  endif()
endmacro()

# aw_test_unity(TARGET): a test executable's files in unity batches too, when AW_UNITY is on: a
# test file's compile is mostly the parse of the headers it shares with the executable's other
# files. So the file-local names of one test executable's files (anonymous-namespace helpers,
# constants, fixtures) are distinct within it, whatever the batch (docs/building.md; a quiet
# overload shows in scripts/unity-names).
# AW_UNITY_TEST_BATCH sets their batch apart from src/'s (empty: AW_UNITY_BATCH; 0: all of an
# executable's files in one source, which shows every clash at once).
set(AW_UNITY_TEST_BATCH "" CACHE STRING "Files per unity source of a test executable (empty: AW_UNITY_BATCH)")
function(aw_test_unity target)
  if(NOT AW_UNITY)
    return()
  endif()
  set(batch ${AW_UNITY_TEST_BATCH})
  if("${batch}" STREQUAL "")
    set(batch ${AW_UNITY_BATCH})
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
endfunction()

if(AW_SPLIT_DWARF)
  add_compile_options(-gsplit-dwarf)
endif()

if(AW_LINKER)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=${AW_LINKER}" AW_HAVE_LINKER_${AW_LINKER})
  if(NOT AW_HAVE_LINKER_${AW_LINKER})
    message(FATAL_ERROR "AW_LINKER=${AW_LINKER}: the compiler cannot link with -fuse-ld=${AW_LINKER}. "
      "Install it (Debian: apt install ${AW_LINKER}) or configure with -DAW_LINKER= (the default linker).")
  endif()
  add_link_options(-fuse-ld=${AW_LINKER})
endif()

# AW_TEST_PCH: the tests' executables share one precompiled header (tests/test_pch.h: GoogleTest,
# nlohmann/json, fmt and the standard headers most tests include). GoogleTest's headers are most
# of a test file's compile: with the header precompiled once a tree, a test file compiles about
# three times faster (bench/build/run). Only a compile-speed aid: every test still includes what
# it uses, and the ASan and fuzz trees, which build tests without it, would catch one that does not.
# ccache caches the objects only with its `pch_defines,time_macros` sloppiness, set by the launcher
# in CMakeLists.txt.
option(AW_TEST_PCH "The tests share one precompiled header (faster builds)" ON)

# aw_test_pch_anchor(): the target whose precompiled header every aw_test() reuses. Its flags are
# the tests' own (same definitions, PIE), as GCC accepts a precompiled header only then.
function(aw_test_pch_anchor)
  if(NOT AW_TEST_PCH OR TARGET aw_test_pch)
    return()
  endif()
  add_executable(aw_test_pch ${PROJECT_SOURCE_DIR}/tests/test_pch_anchor.cc)
  aw_target(aw_test_pch)
  target_link_libraries(aw_test_pch PRIVATE nlohmann_json::nlohmann_json fmt::fmt GTest::gtest
                                            GTest::gtest_main)
  target_compile_definitions(aw_test_pch PRIVATE
    AW_BINARY_DIR="${PROJECT_BINARY_DIR}" AW_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_precompile_headers(aw_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/tests/test_pch.h)
endfunction()

# aw_test_pch_use(TARGET): TARGET (a test or a benchmark) compiles with the tests' precompiled
# header, and with the usage flags GCC wants to match the anchor's (fmt's FMT_SHARED,
# GoogleTest's GTEST_HAS_PTHREAD, the tests' two folders): without one, GCC refuses the header.
function(aw_test_pch_use target)
  if(NOT AW_TEST_PCH)
    return()
  endif()
  aw_test_pch_anchor()
  target_precompile_headers(${target} REUSE_FROM aw_test_pch)
  # GoogleTest's target for its usage flags only: a benchmark calls none of it, so the linker
  # takes nothing from the static library.
  target_link_libraries(${target} PRIVATE fmt::fmt nlohmann_json::nlohmann_json GTest::gtest)
  target_compile_definitions(${target} PRIVATE
    AW_BINARY_DIR="${PROJECT_BINARY_DIR}" AW_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()
