# header_warnings.cmake - ctest helper: every C++ compiler given compiles a file that includes
# satfeat.hpp, and one that includes satfeat/opencv.hpp when OpenCV's include folders are given
# (as system headers: their own warnings are OpenCV's), with strict warnings as errors (syntax
# only): satfeat.hpp as C++17 and C++20; each of its parts alone and the adapter (OpenCV's
# headers are heavy) as C++17.
#   cmake -DCOMPILERS=c++|... -DINCLUDE=<source>/include [-DOPENCV_INCLUDE=dir|...] -DWORK=dir
#         -P header_warnings.cmake
string(REPLACE "|" ";" compilers "${COMPILERS}")
string(REPLACE "|" ";" opencv_dirs "${OPENCV_INCLUDE}")
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/plain.cpp" "#include <satfeat.hpp>\nint main() { return 0; }\n")
set(files plain.cpp)
# each part of satfeat.hpp on its own: it includes what it needs
foreach(part core features detect motion track ar)
  file(WRITE "${WORK}/part_${part}.cpp" "#include <satfeat/${part}.hpp>\nint main() { return 0; }\n")
  list(APPEND files part_${part}.cpp)
endforeach()
set(system_flags "")
if(opencv_dirs)
  file(WRITE "${WORK}/opencv.cpp" "#include <satfeat/opencv.hpp>\nint main() { return 0; }\n")
  list(APPEND files opencv.cpp)
  foreach(d IN LISTS opencv_dirs)
    list(APPEND system_flags -isystem ${d})
  endforeach()
endif()
set(warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
    -Wnon-virtual-dtor -Woverloaded-virtual -Werror)
set(failed "")
set(n 0)
foreach(cxx IN LISTS compilers)
  foreach(std 17 20)
    foreach(f IN LISTS files)
      if(NOT f STREQUAL "plain.cpp" AND NOT std EQUAL 17)
        continue()
      endif()
      execute_process(COMMAND ${cxx} -std=c++${std} -fsyntax-only ${warnings} -I${INCLUDE}
                              ${system_flags} ${WORK}/${f}
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
      math(EXPR n "${n} + 1")
      if(NOT rc EQUAL 0)
        message("${cxx} -std=c++${std} ${f}:\n${out}")
        list(APPEND failed "${cxx} c++${std} ${f}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(failed)
  message(FATAL_ERROR "header_warnings: failed: ${failed}")
endif()
message("header_warnings: ${n} compilations clean (${COMPILERS})")
