# include_roots_check.cmake - proves that the build's per-module include paths
# (cmake/satfeat_module.cmake) turn a forbidden include into a compile error: a file compiled
# with detect/'s include path may include sat/sat.h (its seam) and src/hd.h, but not
# sat/sat_layout.h (a SAT internal) nor match/match_rules.h (a later module).
#   cmake -DCC=<C compiler> -DROOTS=<build>/include_roots -DINCLUDE=<source>/include -P ...
foreach(v CC ROOTS INCLUDE)
  if(NOT ${v})
    message(FATAL_ERROR "include_roots_check: pass -D${v}=...")
  endif()
endforeach()
set(dir ${CMAKE_CURRENT_BINARY_DIR}/include_roots_check)
file(MAKE_DIRECTORY ${dir})

# Compiles one line `#include "<header>"` as a file of module `module`; sets `out` to its result.
function(try_include module header out)
  file(WRITE ${dir}/probe.c "#include \"${header}\"\nint satfeat_probe_unused;\n")
  execute_process(COMMAND ${CC} -fsyntax-only -I${ROOTS}/${module} -I${INCLUDE} ${dir}/probe.c
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  set(${out} ${rc} PARENT_SCOPE)
endfunction()

set(failures "")
foreach(allowed "sat/sat.h" "src/hd.h" "detect/scale_space.h")
  try_include(detect ${allowed} rc)
  if(NOT rc EQUAL 0)
    list(APPEND failures "detect/ could not include ${allowed} (allowed)")
  endif()
endforeach()
foreach(forbidden "sat/sat_layout.h" "match/match_rules.h" "track/motion_score.h")
  try_include(detect ${forbidden} rc)
  if(rc EQUAL 0)
    list(APPEND failures "detect/ compiled an include of ${forbidden} (forbidden)")
  endif()
endforeach()
try_include(match "detect/detector_internal.h" rc)
if(rc EQUAL 0)
  list(APPEND failures "match/ compiled an include of detect/detector_internal.h (forbidden)")
endif()
if(failures)
  string(JOIN "\n  " text ${failures})
  message(FATAL_ERROR "include_roots_check:\n  ${text}")
endif()
message(STATUS "include_roots_check: forbidden includes fail to compile, allowed ones compile")
