# `cmake --install BUILD [--prefix DIR]`: tidesim's libraries, their headers, the CLI and a CMake
# package, so that a plugin builds out of tree (docs/writing-a-policy.md, "Out of tree"):
#
#   find_package(tidesim REQUIRED)
#   add_executable(my-tidesim my_plugin.cpp)
#   target_link_libraries(my-tidesim PRIVATE tidesim::cli_main)
#
# Layout under the prefix: bin/tidesim; lib/libtidesim_*.a; include/tidesim/<folder>/*.hpp (the
# public headers, cmake/public_headers.cmake; they keep their path from the repository root under
# tidesim/, as the sources include them:
# #include <tidesim/policies/registry.hpp>; the include path is the prefix's include/ alone);
# lib/cmake/tidesim/ (the package: tidesimConfig.cmake, its version file and the targets).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(tidesim_libraries tidesim_headers tidesim_engine tidesim_input tidesim_api tidesim_prediction
    tidesim_metrics tidesim_topologies tidesim_workloads tidesim_llm tidesim_policies tidesim_admission
    tidesim_scenario tidesim_model tidesim_experiments tidesim_sim tidesim_app tidesim_cli
    tidesim_cli_main)
foreach(target IN LISTS tidesim_libraries)
  string(REGEX REPLACE "^tidesim_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
# The static libraries name the warnings target as a link-only dependency: it is exported too.
install(TARGETS ${tidesim_libraries} tidesim_warnings EXPORT tidesimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} INCLUDES DESTINATION include)
install(TARGETS tidesim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The public headers alone (cmake/public_headers.cmake); the others stay private to the build.
include(${PROJECT_SOURCE_DIR}/cmake/public_headers.cmake)
tidesim_public_headers(tidesim_installed_headers)
foreach(header IN LISTS tidesim_installed_headers)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION include/tidesim/${folder})
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/generated/tidesim/version.hpp DESTINATION include/tidesim)
# The list of what is installed under include/tidesim/, one header a line, for the out-of-tree
# test to compare with the install (tests/install/out_of_tree_plugin_test.sh).
list(JOIN tidesim_installed_headers "\n" tidesim_installed_list)
file(WRITE ${CMAKE_BINARY_DIR}/generated/public_headers.txt "${tidesim_installed_list}\nversion.hpp\n")

set(TIDESIM_PACKAGE_WITH_MPI OFF)
if(MPI_CXX_FOUND)
  set(TIDESIM_PACKAGE_WITH_MPI ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tidesimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/tidesimConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tidesim)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/tidesimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(EXPORT tidesimTargets NAMESPACE tidesim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tidesim)
install(FILES ${CMAKE_BINARY_DIR}/generated/tidesimConfig.cmake
              ${CMAKE_BINARY_DIR}/generated/tidesimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tidesim)
