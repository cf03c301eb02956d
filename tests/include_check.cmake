# include_check.cmake - the layering rules of docs/ARCHITECTURE.md, checked on the sources.
#   cmake -DROOT=<repository root> -P include_check.cmake
# Fails (listing every violation) when
#  - a file in cli/, examples/ or python/src/ includes a quoted header other than satfeat.h or a header of
#    its own folder (they are clients of the public API only);
#  - a file in detect/ includes a header of sat/ other than sat.h (the SAT module's one seam);
#  - a file in match/, track/, ar/ or eval/ includes a quoted header other than satfeat.h, a src/
#    header or a header of its own folder (they read the detector's output through the public
#    types, not its internals).
if(NOT ROOT)
  message(FATAL_ERROR "include_check: pass -DROOT=<repository root>")
endif()
set(violations "")

# Quoted includes of `file`, one list element per header name.
function(quoted_includes file out)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  set(names "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" name "${line}")
    list(APPEND names ${name})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

foreach(dir cli examples python/src)
  file(GLOB files ${ROOT}/${dir}/*.c ${ROOT}/${dir}/*.h)
  foreach(f IN LISTS files)
    quoted_includes(${f} names)
    foreach(name IN LISTS names)
      if(NOT name STREQUAL "satfeat.h" AND NOT EXISTS ${ROOT}/${dir}/${name})
        list(APPEND violations "${dir}/: ${f} includes \"${name}\" (only satfeat.h and ${dir}/ headers)")
      endif()
    endforeach()
  endforeach()
endforeach()

file(GLOB files ${ROOT}/detect/*.c ${ROOT}/detect/*.h ${ROOT}/detect/*.cu ${ROOT}/detect/*.cuh)
foreach(f IN LISTS files)
  quoted_includes(${f} names)
  foreach(name IN LISTS names)
    if(EXISTS ${ROOT}/sat/${name} AND NOT name STREQUAL "sat.h")
      list(APPEND violations "detect/: ${f} includes the SAT internal \"${name}\" (only sat/sat.h)")
    endif()
  endforeach()
endforeach()

foreach(dir match track ar eval)
  file(GLOB files ${ROOT}/${dir}/*.c ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.cu ${ROOT}/${dir}/*.cuh)
  foreach(f IN LISTS files)
    quoted_includes(${f} names)
    foreach(name IN LISTS names)
      if(NOT name STREQUAL "satfeat.h" AND NOT EXISTS ${ROOT}/src/${name} AND
         NOT EXISTS ${ROOT}/${dir}/${name})
        list(APPEND violations "${dir}/: ${f} includes \"${name}\" (only satfeat.h, src/ and ${dir}/ headers)")
      endif()
    endforeach()
  endforeach()
endforeach()

list(LENGTH violations n)
if(n GREATER 0)
  string(JOIN "\n  " text ${violations})
  message(FATAL_ERROR "include_check: ${n} violation(s):\n  ${text}")
endif()
message(STATUS "include_check: cli/, examples/, detect/, match/, track/, ar/ and eval/ keep to their includes")
