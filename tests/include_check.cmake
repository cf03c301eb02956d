# include_check.cmake - the layering rules of docs/ARCHITECTURE.md, checked on the sources.
#   cmake -DROOT=<repository root> -P include_check.cmake
# The build enforces them on what it compiles (cmake/satfeat_module.cmake gives each module an
# include path of what it may include); this check covers what a build leaves out (the .cu files
# of a build without CUDA, video files without FFmpeg) and the clients. It reads each module's
# MAY_INCLUDE list from <module>/sources.cmake, so the rules live in one place, and fails
# (listing every violation) when
#  - a file of a library module includes a quoted header by a bare name (internal includes name
#    their module: "sat/sat.h"), or a header its module may not include;
#  - a file in cli/, examples/ or python/src/ includes a quoted header other than satfeat.h or a
#    header of its own folder (they are clients of the public API only).
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

# The MAY_INCLUDE entries of module `dir` (the words after MAY_INCLUDE up to the next keyword).
function(module_rules dir out)
  file(READ ${ROOT}/${dir}/sources.cmake text)
  string(REGEX REPLACE "#[^\n]*" "" text "${text}")
  set(rules "")
  if(text MATCHES "MAY_INCLUDE([^)]*)")
    string(REGEX REPLACE "[ \t\n]+" ";" words "${CMAKE_MATCH_1}")
    foreach(w IN LISTS words)
      if(w MATCHES "^(C|CUDA|CUDA_HOST|LIBS|DEFINES)$")
        break()
      endif()
      if(NOT w STREQUAL "")
        list(APPEND rules ${w})
      endif()
    endforeach()
  endif()
  set(${out} ${rules} PARENT_SCOPE)
endfunction()

file(GLOB module_files RELATIVE ${ROOT} ${ROOT}/*/sources.cmake)
set(modules "")
foreach(mf IN LISTS module_files)
  get_filename_component(dir ${mf} DIRECTORY)
  file(READ ${ROOT}/${mf} text)
  if(text MATCHES "satfeat_add_module\\(")
    list(APPEND modules ${dir})
  endif()
endforeach()

foreach(dir IN LISTS modules)
  module_rules(${dir} rules)
  list(APPEND rules ${dir})
  file(GLOB files ${ROOT}/${dir}/*.c ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.cu ${ROOT}/${dir}/*.cuh)
  foreach(f IN LISTS files)
    quoted_includes(${f} names)
    foreach(name IN LISTS names)
      if(name STREQUAL "satfeat.h")
        continue()
      endif()
      if(NOT name MATCHES "/")
        list(APPEND violations "${dir}/: ${f} includes \"${name}\" by a bare name (write \"<module>/${name}\")")
        continue()
      endif()
      string(REGEX REPLACE "/.*$" "" target_dir "${name}")
      list(FIND rules ${target_dir} whole)
      list(FIND rules ${name} seam)
      if(whole EQUAL -1 AND seam EQUAL -1)
        list(JOIN rules " " allowed)
        list(APPEND violations "${dir}/: ${f} includes \"${name}\" (${dir}/ may include: ${allowed})")
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(dir cli examples python/src)
  file(GLOB files ${ROOT}/${dir}/*.c ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.cpp ${ROOT}/${dir}/*.hpp)
  foreach(f IN LISTS files)
    quoted_includes(${f} names)
    foreach(name IN LISTS names)
      if(NOT name STREQUAL "satfeat.h" AND NOT name STREQUAL "satfeat.hpp" AND
         NOT EXISTS ${ROOT}/${dir}/${name})
        list(APPEND violations "${dir}/: ${f} includes \"${name}\" (only satfeat.h and ${dir}/ headers)")
      endif()
    endforeach()
  endforeach()
endforeach()

list(LENGTH violations n)
if(n GREATER 0)
  string(JOIN "\n  " text ${violations})
  message(FATAL_ERROR "include_check: ${n} violation(s):\n  ${text}")
endif()
list(JOIN modules ", " module_list)
message(STATUS "include_check: modules ${module_list} and the clients keep to their includes")
