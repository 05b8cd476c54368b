# Installs the build into a temporary prefix, moves the prefix elsewhere, and runs the installed
# `sparring match` there: it must find the default opening book under the prefix, with no path
# into the source or build tree compiled in.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=... -P install_check.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix
                RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${status}")
endif()
file(RENAME ${WORK}/prefix ${WORK}/moved)
set(prefix ${WORK}/moved)
foreach(file bin/sparring bin/sparring-coordinator bin/sparring-worker bin/sparring-engine
             share/sparring/books/default.epd)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()
file(STRINGS ${prefix}/bin/sparring source_paths REGEX "${SOURCE_DIR}|${BUILD_DIR}")
if(source_paths)
  message(FATAL_ERROR "bin/sparring holds a path into the source or build tree: ${source_paths}")
endif()

set(ENV{SPARRING_BOOK} "")
execute_process(COMMAND ${prefix}/bin/sparring match --pairs 2 --tc nodes=200 builtin builtin
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "installed sparring match failed (${status}): ${err}")
endif()
if(NOT out MATCHES "4 games")
  message(FATAL_ERROR "installed sparring match played no 4 games: ${out}${err}")
endif()
file(REMOVE_RECURSE ${prefix}/share)
execute_process(COMMAND ${prefix}/bin/sparring match --pairs 1 builtin builtin
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT err MATCHES "cannot open book '${prefix}/share/sparring/books/default.epd'")
  message(FATAL_ERROR "without share/ the CLI did not look for the book under the prefix: ${err}")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "the installed CLI found its default book under the moved prefix")
