# The Python package's pytest suites (python/tests/), run by Debian's interpreter with the
# build tree's package first on PYTHONPATH. Registered only in builds without sanitizers: an
# ASan-instrumented extension cannot be loaded into the uninstrumented interpreter without
# LD_PRELOAD tricks that make CPython's own allocations fail LeakSanitizer (docs/PYTHON.md).
if(NOT SATFEAT_HAVE_PYTHON OR SATFEAT_SANITIZE)
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

# satfeat_add_pytest(NAME FILE [TIMEOUT s]): one pytest file, one ctest.
function(satfeat_add_pytest name file)
  cmake_parse_arguments(T "" "TIMEOUT" "" ${ARGN})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E env
    PYTHONPATH=${SATFEAT_PYTHON_DIR}
    PYTHONDONTWRITEBYTECODE=1
    SATFEAT_REF_FEATURES=$<TARGET_FILE:satfeat_py_ref_features>
    SATFEAT_GEN_SEQUENCE=$<TARGET_FILE:satfeat_gen_sequence>
    SATFEAT_TEST_DATA_DIR=${SATFEAT_TEST_DATA_DIR}
    SATFEAT_TEST_TMP_DIR=${CMAKE_CURRENT_BINARY_DIR}/${name}.tmp
    ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/python/tests/${file})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS python TIMEOUT ${T_TIMEOUT})
endfunction()

satfeat_add_pytest(python_module test_module.py)
satfeat_add_pytest(python_errors test_errors.py)
if(TARGET satfeat_gen_sequence)
  satfeat_add_pytest(python_batch test_batch.py TIMEOUT 300)
endif()
