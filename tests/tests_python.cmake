# The Python package's pytest suites (python/tests/), run by Debian's interpreter with the
# build tree's package first on PYTHONPATH. In the ASan/UBSan build the instrumented extension is
# loaded into the uninstrumented interpreter with libasan preloaded and leak detection off for
# the interpreter (CPython and NumPy keep allocations until exit by design); the Dask suite runs
# only in builds without sanitizers (its worker processes would all inherit the preload).
if(NOT SATFEAT_HAVE_PYTHON)
  return()
endif()
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest"
                RESULT_VARIABLE satfeat_no_pytest OUTPUT_QUIET ERROR_QUIET)
if(satfeat_no_pytest)
  message(WARNING "pytest not found for ${Python3_EXECUTABLE}: the Python tests are not registered "
                  "(Debian: apt-get install python3-pytest)")
  return()
endif()

add_executable(satfeat_py_ref_features ${PROJECT_SOURCE_DIR}/python/tests/ref_features.c)
target_link_libraries(satfeat_py_ref_features PRIVATE satfeat_static)
target_compile_options(satfeat_py_ref_features PRIVATE ${SATFEAT_C_FLAGS})

set(satfeat_pytest_env "")
if(SATFEAT_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE satfeat_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${satfeat_libasan}")
    message(STATUS "libasan not found: the Python tests are not registered in the sanitizer build")
    return()
  endif()
  set(satfeat_pytest_env LD_PRELOAD=${satfeat_libasan}
      ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1)
endif()

if(TARGET make_test_video)
  list(APPEND satfeat_pytest_env SATFEAT_MAKE_TEST_VIDEO=$<TARGET_FILE:make_test_video>)
endif()
if(TARGET satfeat_gen_sequence)
  list(APPEND satfeat_pytest_env SATFEAT_GEN_SEQUENCE=$<TARGET_FILE:satfeat_gen_sequence>)
endif()

# satfeat_add_pytest(NAME FILE [TIMEOUT s]): one pytest file, one ctest.
function(satfeat_add_pytest name file)
  cmake_parse_arguments(T "" "TIMEOUT" "" ${ARGN})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E env ${satfeat_pytest_env}
    PYTHONPATH=${SATFEAT_PYTHON_DIR}
    PYTHONDONTWRITEBYTECODE=1
    SATFEAT_REF_FEATURES=$<TARGET_FILE:satfeat_py_ref_features>
    SATFEAT_TEST_DATA_DIR=${SATFEAT_TEST_DATA_DIR}
    ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/python/tests/${file})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS python TIMEOUT ${T_TIMEOUT})
endfunction()

satfeat_add_pytest(python_module test_module.py)
satfeat_add_pytest(python_errors test_errors.py)
satfeat_add_pytest(python_video test_video.py)
if(TARGET satfeat_gen_sequence AND NOT SATFEAT_SANITIZE)
  satfeat_add_pytest(python_batch test_batch.py TIMEOUT 300)
endif()
