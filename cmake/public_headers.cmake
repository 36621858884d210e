# The public headers: what `cmake --install` ships (cmake/install.cmake). A plugin author, a
# job-policy author and a program that runs scenarios and reads their results include the roots
# below; the public set is those roots and every project header they include, followed through
# their `#include <tidesim/...>` (or "tidesim/...") lines, so that it stays whole as the headers
# change. Every other header is private to the build.
set(tidesim_public_header_roots
  policies/framework.hpp            # plugins: extension points, CycleContext, Status
  policies/registry.hpp             # plugins: registering them, their args
  sim/admission/job_policy.hpp      # job-level policies
  sim/admission/job_policy_registry.hpp
  sim/experiments/run.hpp           # running a scenario's policy
  sim/api/run_signals.hpp           # what a run emits
  tools/lib/result.hpp              # the result of a run and its JSON form
  tools/cli/command_line.hpp        # the CLI with extra plugins (cli_main)
  llm/job.hpp                       # the LLM step-time model: inputs, step, report
  llm/step.hpp
  llm/validate.hpp
  llm/report.hpp
)

# tidesim_public_headers(OUT): the public headers, as paths from the repository root, sorted.
function(tidesim_public_headers out)
  set(todo ${tidesim_public_header_roots})
  set(seen "")
  while(todo)
    list(POP_FRONT todo header)
    if(header IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${header})
    set(file ${PROJECT_SOURCE_DIR}/${header})
    if(NOT EXISTS ${file})
      message(FATAL_ERROR "public header ${header} (cmake/public_headers.cmake) does not exist")
    endif()
    # A change of its includes changes the set: configure again.
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
    file(STRINGS ${file} lines REGEX "^#include [<\"]tidesim/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^#include [<\"]tidesim/([^>\"]+)[>\"].*" "\\1" included "${line}")
      if(NOT included STREQUAL "version.hpp")  # generated, installed apart
        list(APPEND todo ${included})
      endif()
    endforeach()
  endwhile()
  list(SORT seen)
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
