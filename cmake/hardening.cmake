# Hardening of every target of every build tree (issue 31, item 3): awaywork runs beside hostile
# agents and parses what they wrote, so a memory error must not be an easy exploit. Directory-wide
# (every target created after this include, the static helpers and tests too), not in aw_target,
# so no target can miss it. What each tree gets:
#   all:  -fstack-protector-strong, -fcf-protection (where the compiler takes it), PIE (-fPIE,
#         -pie; the static helpers -static-pie, src/isolate/CMakeLists.txt), -z relro -z now
#   Release, RelWithDebInfo, MinSizeRel without sanitizers: -D_FORTIFY_SOURCE=3 (2 where the
#         compiler and glibc lack 3)
#   Debug (-O0) and sanitized trees (AW_SANITIZE, AW_FUZZ, -fsanitize in CMAKE_CXX_FLAGS): no
#         _FORTIFY_SOURCE. glibc warns without optimization (an error under -Werror), and the
#         __*_chk wrappers would sidestep ASan's interceptors.
# -U_FORTIFY_SOURCE always comes first: CMAKE_CXX_FLAGS may already define it (dpkg-buildflags'
# CPPFLAGS, scripts/package-deb, or a compiler that defines it by default), and a redefinition is
# a warning, so an error. Compile options come after CMAKE_CXX_FLAGS on the command line.
include(CheckCXXCompilerFlag)
include(CheckCXXSourceCompiles)
include(CheckPIESupported)

add_compile_options(-fstack-protector-strong)

check_cxx_compiler_flag(-fcf-protection AW_HAVE_CF_PROTECTION)
if(AW_HAVE_CF_PROTECTION)
  add_compile_options(-fcf-protection)
endif()

check_pie_supported(OUTPUT_VARIABLE aw_pie_why LANGUAGES CXX)
if(NOT CMAKE_CXX_LINK_PIE_SUPPORTED)
  message(WARNING "the linker cannot make a position-independent executable: ${aw_pie_why}")
endif()
set(CMAKE_POSITION_INDEPENDENT_CODE ON)  # -fPIE and, with check_pie_supported, -pie

add_link_options(-Wl,-z,relro -Wl,-z,now)

add_compile_options(-U_FORTIFY_SOURCE)
set(AW_FORTIFY 0)  # the level optimized configurations get; tests/package/hardening_test.sh
if(NOT (AW_SANITIZE OR AW_FUZZ OR CMAKE_CXX_FLAGS MATCHES "-fsanitize="))
  # Level 3 needs __builtin_dynamic_object_size (GCC 12, clang 9) and glibc 2.34: features.h
  # quietly falls back to 2 otherwise, so ask it which level it took.
  set(CMAKE_REQUIRED_FLAGS "-O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3")
  check_cxx_source_compiles([[
#include <cstring>
#if !defined(__USE_FORTIFY_LEVEL) || __USE_FORTIFY_LEVEL < 3
#error _FORTIFY_SOURCE=3 is not supported here
#endif
int main() { return 0; }
]] AW_HAVE_FORTIFY_3)
  unset(CMAKE_REQUIRED_FLAGS)
  if(AW_HAVE_FORTIFY_3)
    set(AW_FORTIFY 3)
  else()
    set(AW_FORTIFY 2)
  endif()
  set(aw_optimized $<CONFIG:Release,RelWithDebInfo,MinSizeRel>)
  add_compile_options($<${aw_optimized}:-D_FORTIFY_SOURCE=${AW_FORTIFY}>)
endif()
