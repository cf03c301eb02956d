# The Python package's pytest suites (python/tests/), run by Debian's interpreter with the
# build tree's package first on PYTHONPATH. In the ASan/UBSan build the instrumented extension is
# loaded into the uninstrumented interpreter with libasan preloaded and leak detection off for
# the interpreter (CPython and NumPy keep allocations until exit by design); the Dask suite runs
# only in builds without sanitizers (its worker processes would all inherit the preload). In the
# TSan build (SATFEAT_TSAN) only the threaded suite runs, with libtsan preloaded (docs/TESTING.md).
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
if(SATFEAT_TSAN)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libtsan.so
                  OUTPUT_VARIABLE satfeat_libtsan OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${satfeat_libtsan}")
    message(STATUS "libtsan not found: the Python tests are not registered in the TSan build")
    return()
  endif()
  # The interpreter is not linked with libtsan, so it is preloaded (else the module cannot load:
  # "cannot allocate memory in static TLS block"). No suppressions are needed: the interpreter's
  # own accesses are not instrumented, and its locks (the GIL) go through libtsan's
  # pthread interceptors, so TSan sees the hand-over. One round of the stress test: 6 took
  # 219 s under TSan on 2 shared cores, 1 took 43 - 56 s.
  set(satfeat_pytest_env LD_PRELOAD=${satfeat_libtsan} SATFEAT_STRESS_ROUNDS=1
      TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1)
endif()
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

list(APPEND satfeat_pytest_env SATFEAT_JPEG_FIXTURE=$<TARGET_FILE:satfeat_test_jpeg_fixture>)
if(TARGET make_test_video)
  list(APPEND satfeat_pytest_env SATFEAT_MAKE_TEST_VIDEO=$<TARGET_FILE:make_test_video>)
endif()
if(TARGET satfeat_gen_sequence)
  list(APPEND satfeat_pytest_env SATFEAT_GEN_SEQUENCE=$<TARGET_FILE:satfeat_gen_sequence>)
endif()
if(TARGET satfeat_gen_ar_sequence)
  list(APPEND satfeat_pytest_env SATFEAT_GEN_AR_SEQUENCE=$<TARGET_FILE:satfeat_gen_ar_sequence>)
endif()

# Under a sanitizer pytest captures sys.stdout/stderr only: with its default fd capture the
# sanitizer's report, written to fd 2 just before the process aborts, would be lost.
set(satfeat_pytest_capture "")
if(SATFEAT_SANITIZE OR SATFEAT_TSAN)
  set(satfeat_pytest_capture --capture=sys)
endif()

# satfeat_add_pytest(NAME FILE [TIMEOUT s]): one pytest file, one ctest.
function(satfeat_add_pytest name file)
  cmake_parse_arguments(T "" "TIMEOUT" "" ${ARGN})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E env ${satfeat_pytest_env}
    PYTHONPATH=${SATFEAT_PYTHON_DIR}
    PYTHONDONTWRITEBYTECODE=1
    SATFEAT_REF_FEATURES=$<TARGET_FILE:satfeat_py_ref_features>
    SATFEAT_TEST_DATA_DIR=${SATFEAT_TEST_DATA_DIR}
    ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${satfeat_pytest_capture}
    ${PROJECT_SOURCE_DIR}/python/tests/${file})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS python TIMEOUT ${T_TIMEOUT})
endfunction()

# Threads sharing objects, the result of every call against the serial one: in every build,
# and the one suite of the TSan build (label tsan).
satfeat_add_pytest(python_threads test_threads.py)
if(SATFEAT_TSAN)
  set_tests_properties(python_threads PROPERTIES LABELS "python;tsan")
  return()
endif()
# pip install . (setup.py) of this checkout into a scratch directory, offline, packaging this
# tree's extension; then import and a detection from elsewhere. Not in the sanitizer build: its
# extension needs the sanitizer runtime preloaded.
if(NOT SATFEAT_SANITIZE)
  add_test(NAME python_pip_install COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/python_pip_install.sh
           ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
           ${CMAKE_CURRENT_BINARY_DIR}/pip-install)
  set_tests_properties(python_pip_install PROPERTIES LABELS python TIMEOUT 600)
endif()
satfeat_add_pytest(python_module test_module.py)
satfeat_add_pytest(python_errors test_errors.py)
satfeat_add_pytest(python_motion test_motion.py)
satfeat_add_pytest(python_opencv test_opencv.py)
# mypy's stubtest analyses NumPy's stubs too: 30 s alone, 150 s beside a parallel ctest
satfeat_add_pytest(python_stubs test_stubs.py TIMEOUT 600)
satfeat_add_pytest(python_buffers_fuzz test_buffers_fuzz.py TIMEOUT 120)
satfeat_add_pytest(python_jpeg test_jpeg.py)
satfeat_add_pytest(python_video test_video.py)
satfeat_add_pytest(python_ar test_ar.py)
if(TARGET satfeat_gen_sequence AND NOT SATFEAT_SANITIZE)
  satfeat_add_pytest(python_batch test_batch.py TIMEOUT 300)
  satfeat_add_pytest(python_batch_hostile test_batch_hostile.py TIMEOUT 300)
  # a worker SIGKILLed and the client SIGTERMed over several runs, a poison image (65 - 101 s
  # on a loaded 2-core machine)
  satfeat_add_pytest(python_batch_chaos test_batch_chaos.py TIMEOUT 300)
endif()
