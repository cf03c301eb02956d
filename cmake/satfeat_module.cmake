# satfeat_module.cmake - one CMake object library per library module, whose include path holds
# only what docs/ARCHITECTURE.md lets the module include, so a forbidden include fails to
# compile.
#
#   satfeat_add_module(<name> [MAY_INCLUDE <entry>...] [C <file>...] [CUDA <file>...]
#                      [CUDA_HOST <file>...] [LIBS <target>...] [DEFINES <def>...])
#
# Every module includes the public header (include/) and its own headers as "<name>/x.h". An
# entry of MAY_INCLUDE is a folder ("src": all of it) or one header ("sat/sat.h": that module's
# seam only). The include path is a folder of the build tree holding symbolic links to exactly
# those entries. CUDA and CUDA_HOST files are built only with the CUDA backend; C files always.
# The modules' objects make up libsatfeat (SATFEAT_MODULE_TARGETS, a global property).
function(satfeat_add_module name)
  cmake_parse_arguments(M "" "" "MAY_INCLUDE;C;CUDA;CUDA_HOST;LIBS;DEFINES" ${ARGN})
  set(root ${PROJECT_BINARY_DIR}/include_roots/${name})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(entry IN LISTS name M_MAY_INCLUDE)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${entry})
      message(FATAL_ERROR "satfeat_add_module(${name}): ${entry} does not exist")
    endif()
    get_filename_component(dir ${entry} DIRECTORY)
    if(dir)
      file(MAKE_DIRECTORY ${root}/${dir})
    endif()
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${entry} ${root}/${entry} SYMBOLIC)
  endforeach()

  set(sources ${M_C})
  if(SATFEAT_HAVE_CUDA)
    list(APPEND sources ${M_CUDA} ${M_CUDA_HOST})
  endif()
  set(target satfeat_${name}_objects)
  add_library(${target} OBJECT ${sources})
  target_include_directories(${target} PRIVATE ${root} ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(${target} PRIVATE SATFEAT_BUILDING=1 ${M_DEFINES})
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:${SATFEAT_C_FLAGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:${SATFEAT_CUDA_FLAGS}>)
  target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C ${M_LIBS})
  if(SATFEAT_HAVE_CUDA)
    target_compile_definitions(${target} PRIVATE SATFEAT_HAVE_CUDA=1)
    target_link_libraries(${target} PRIVATE CUDA::cudart_static)
  endif()
  if(SATFEAT_FUZZ) # the coverage ignore list changes the objects: rebuild them when it changes
    set_source_files_properties(${M_C} TARGET_DIRECTORY ${target} PROPERTIES OBJECT_DEPENDS
                                ${PROJECT_SOURCE_DIR}/tests/fuzz/coverage_ignore.txt)
  endif()
  set_property(GLOBAL APPEND PROPERTY SATFEAT_MODULE_TARGETS ${target})
endfunction()
