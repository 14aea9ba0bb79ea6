# How fast a tree builds (issue 37; bench/build/run measures it). Nothing here changes what the
# binaries do. scripts/build turns both on for the debug tree:
#   AW_SPLIT_DWARF  -gsplit-dwarf: each object's debug info goes to a .dwo beside it, which the
#                   compiler writes faster and the linker never reads (gdb still finds it).
#   AW_LINKER       the linker the GCC driver picks (-fuse-ld=NAME), e.g. mold: several times
#                   faster than ld.bfd at linking the tests' executables. Checked before use.
# The Release tree keeps Debian's ld.bfd and no split DWARF: what packagers build with.
option(AW_SPLIT_DWARF "Debug info in .dwo files beside the objects (faster compiles and links)" OFF)
set(AW_LINKER "" CACHE STRING "The linker for every target (-fuse-ld=NAME: mold, lld, gold); empty: the compiler's default")

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
