# tidesim_add_library(NAME SOURCES file... [PUBLIC dep...] [PRIVATE dep...]): one folder's static
# library, tidesim_NAME with its alias tidesim::NAME, built with the project's warnings and linked
# to its dependencies. Every library of the layers (docs/architecture.md) is made by it.
function(tidesim_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tidesim_add_library(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  add_library(tidesim_${name} STATIC ${ARG_SOURCES})
  add_library(tidesim::${name} ALIAS tidesim_${name})
  target_link_libraries(tidesim_${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE} tidesim_warnings)
endfunction()
