# AstraOptConfig.cmake: find_package(AstraOpt) from an installed astra-opt
# tree (lib/cmake/AstraOpt/ inside it). The tree is relocatable: everything
# is found relative to this file. Provides
#   AstraOpt::astra-opt     the tool (an imported executable)
#   AstraOpt_EXECUTABLE     its path
#   astra_opt_apply_plan()  rewritten sources generated at build time
#   astra_opt_verify()      an opt-in GPU test of a plan
# (see AstraOptFunctions.cmake and docs/build-integration.md).
get_filename_component(_astra_opt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.."
  ABSOLUTE)
set(AstraOpt_EXECUTABLE "${_astra_opt_prefix}/bin/astra-opt")
if(NOT EXISTS "${AstraOpt_EXECUTABLE}")
  set(AstraOpt_FOUND FALSE)
  set(AstraOpt_NOT_FOUND_MESSAGE
    "the astra-opt tree at ${_astra_opt_prefix} has no bin/astra-opt")
  return()
endif()
if(NOT TARGET AstraOpt::astra-opt)
  add_executable(AstraOpt::astra-opt IMPORTED)
  set_target_properties(AstraOpt::astra-opt PROPERTIES
    IMPORTED_LOCATION "${AstraOpt_EXECUTABLE}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/AstraOptFunctions.cmake")
unset(_astra_opt_prefix)
