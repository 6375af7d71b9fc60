# AstraOptFunctions.cmake: apply astra-opt plans in a CMake build.
#
#   astra_opt_apply_plan(TARGET t SOURCES a.cu [b.cu ...]
#                        PLAN a.plan.json [b.plan.json ...]
#                        [ALLOW_CHANGED_SOURCE] [EXTRA_ARGS arg ...])
#
# For each source (paired with the plan at the same position), a build step
# runs `astra-opt --apply-plan plan src -o <build>/astra-opt/<t>/<src>` with
# the target's include directories and compile definitions (as
# --extra-arg=-I / -D, usage requirements of linked targets included) and
# the target compiles the generated file in place of the original; the
# original's directory stays on its include path, so quoted includes resolve
# as before. The step reruns when the source, the plan or astra-opt changes;
# the target <t>_astra_opt_sources runs the steps alone (no compiler needed).
# A plan that no longer matches its source (the source changed since the
# plan was made, or a step's site is gone) fails the build with astra-opt's
# message; ALLOW_CHANGED_SOURCE replays a changed source's plan anyway (a
# warning) as long as every step still applies. No GPU is needed.
#
#   astra_opt_verify(TARGET t SOURCE a.cu SPEC a.astra.json
#                    [NAME test-name] [BACKEND clang|nvcc] [GPU_ARCH sm_XX]
#                    [ARGS arg ...])
#
# Opt-in: a custom target NAME (default astra_opt_verify_<t>_<file stem>)
# that runs `astra-opt --verify` on a GPU: the original against the file the
# plan produced (astra_opt_apply_plan must have been called for SOURCE in
# TARGET before), report in <build>/astra-opt/<NAME>.json. With the cache
# option ASTRA_OPT_VERIFY_TESTS=ON it is also a CTest test (label
# astra-opt-gpu) that counts as skipped, not failed, without a GPU (exit 2),
# and fails when the rewritten file is refused (wrong results, a crash).

option(ASTRA_OPT_VERIFY_TESTS
  "Add astra_opt_verify() targets as CTest tests (they need a GPU)" OFF)

# The target's include directories and definitions as astra-opt arguments,
# evaluated at generate time (a list, for COMMAND_EXPAND_LISTS).
function(_astra_opt_target_flags target out_var)
  set(inc "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(def "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(${out_var}
    "$<$<BOOL:${inc}>:--extra-arg=-I$<JOIN:${inc},$<SEMICOLON>--extra-arg=-I>>"
    "$<$<BOOL:${def}>:--extra-arg=-D$<JOIN:${def},$<SEMICOLON>--extra-arg=-D>>"
    PARENT_SCOPE)
endfunction()

function(astra_opt_apply_plan)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "ALLOW_CHANGED_SOURCE" "TARGET"
    "SOURCES;PLAN;EXTRA_ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "astra_opt_apply_plan: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET OR NOT TARGET "${ARG_TARGET}")
    message(FATAL_ERROR
      "astra_opt_apply_plan: TARGET '${ARG_TARGET}' is not a target")
  endif()
  list(LENGTH ARG_SOURCES n_src)
  list(LENGTH ARG_PLAN n_plan)
  if(n_src EQUAL 0 OR NOT n_src EQUAL n_plan)
    message(FATAL_ERROR "astra_opt_apply_plan(${ARG_TARGET}): give one PLAN "
      "per source (${n_src} SOURCES, ${n_plan} PLAN)")
  endif()
  get_target_property(tgt_src_dir ${ARG_TARGET} SOURCE_DIR)
  get_target_property(tgt_sources ${ARG_TARGET} SOURCES)
  _astra_opt_target_flags(${ARG_TARGET} flags)
  set(strict --require-source-match)
  if(ARG_ALLOW_CHANGED_SOURCE)
    set(strict)
  endif()
  set(umbrella ${ARG_TARGET}_astra_opt_sources)
  if(NOT TARGET ${umbrella})
    add_custom_target(${umbrella})
  endif()
  get_property(calls TARGET ${umbrella} PROPERTY ASTRA_OPT_CALLS)
  if(NOT calls)
    set(calls 0)
  endif()
  math(EXPR calls "${calls} + 1")
  set_property(TARGET ${umbrella} PROPERTY ASTRA_OPT_CALLS ${calls})
  set(outputs)
  math(EXPR last "${n_src} - 1")
  foreach(i RANGE ${last})
    list(GET ARG_SOURCES ${i} src)
    list(GET ARG_PLAN ${i} plan)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${tgt_src_dir}")
    get_filename_component(plan "${plan}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    foreach(f "${src}" "${plan}")
      if(NOT EXISTS "${f}")
        message(FATAL_ERROR "astra_opt_apply_plan(${ARG_TARGET}): no ${f}")
      endif()
    endforeach()
    # Where the target lists the source (relative or absolute).
    set(pos -1)
    set(j 0)
    foreach(s IN LISTS tgt_sources)
      get_filename_component(abs "${s}" ABSOLUTE BASE_DIR "${tgt_src_dir}")
      if(abs STREQUAL src)
        set(pos ${j})
        break()
      endif()
      math(EXPR j "${j} + 1")
    endforeach()
    if(pos EQUAL -1)
      message(FATAL_ERROR "astra_opt_apply_plan(${ARG_TARGET}): ${src} is "
        "not a source of ${ARG_TARGET}")
    endif()
    file(RELATIVE_PATH rel "${tgt_src_dir}" "${src}")
    if(rel MATCHES "^\\.\\./")
      get_filename_component(rel "${src}" NAME)
    endif()
    set(out "${CMAKE_CURRENT_BINARY_DIR}/astra-opt/${ARG_TARGET}/${rel}")
    get_filename_component(out_dir "${out}" DIRECTORY)
    get_filename_component(src_dir "${src}" DIRECTORY)
    add_custom_command(OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
      COMMAND AstraOpt::astra-opt --apply-plan "${plan}" ${strict}
              "${src}" -o "${out}" ${flags} ${ARG_EXTRA_ARGS}
      DEPENDS "${src}" "${plan}" AstraOpt::astra-opt
      COMMENT "astra-opt: applying ${rel}'s plan for ${ARG_TARGET}"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND outputs "${out}")
    list(REMOVE_AT tgt_sources ${pos})
    list(INSERT tgt_sources ${pos} "${out}")
    set_property(SOURCE "${out}" DIRECTORY "${tgt_src_dir}"
      APPEND PROPERTY INCLUDE_DIRECTORIES "${src_dir}")
    set_property(TARGET ${ARG_TARGET} APPEND PROPERTY
      ASTRA_OPT_REWRITTEN "${src}|${out}|${plan}")
  endforeach()
  set_property(TARGET ${ARG_TARGET} PROPERTY SOURCES ${tgt_sources})
  add_custom_target(${umbrella}_${calls} DEPENDS ${outputs})
  add_dependencies(${umbrella} ${umbrella}_${calls})
endfunction()

function(astra_opt_verify)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;SOURCE;SPEC;NAME;BACKEND;GPU_ARCH"
    "ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "astra_opt_verify: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET OR NOT TARGET "${ARG_TARGET}")
    message(FATAL_ERROR "astra_opt_verify: TARGET '${ARG_TARGET}' is not a "
      "target")
  endif()
  get_target_property(tgt_src_dir ${ARG_TARGET} SOURCE_DIR)
  get_filename_component(src "${ARG_SOURCE}" ABSOLUTE
    BASE_DIR "${tgt_src_dir}")
  get_filename_component(spec "${ARG_SPEC}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_target_property(rewritten ${ARG_TARGET} ASTRA_OPT_REWRITTEN)
  set(candidate "")
  foreach(entry IN LISTS rewritten)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 s)
    if(s STREQUAL src)
      list(GET parts 1 candidate)
    endif()
  endforeach()
  if(NOT candidate)
    message(FATAL_ERROR "astra_opt_verify(${ARG_TARGET}): no plan applied to "
      "${src}; call astra_opt_apply_plan for it first")
  endif()
  get_filename_component(stem "${src}" NAME_WE)
  if(NOT ARG_NAME)
    set(ARG_NAME "astra_opt_verify_${ARG_TARGET}_${stem}")
  endif()
  set(backend)
  if(ARG_BACKEND)
    set(backend "--backend=${ARG_BACKEND}")
  endif()
  set(arch)
  if(ARG_GPU_ARCH)
    set(arch "--gpu-arch=${ARG_GPU_ARCH}")
  endif()
  _astra_opt_target_flags(${ARG_TARGET} flags)
  set(report "${CMAKE_CURRENT_BINARY_DIR}/astra-opt/${ARG_NAME}.json")
  # The candidate lives in the build tree: its quoted includes are beside
  # the original.
  get_filename_component(src_dir "${src}" DIRECTORY)
  set(cmd $<TARGET_FILE:AstraOpt::astra-opt> --verify "${src}"
    --candidate "${candidate}" --spec "${spec}" --report "${report}"
    ${backend} ${arch} ${flags} "--extra-arg=-I${src_dir}" ${ARG_ARGS})
  add_custom_target(${ARG_NAME}
    COMMAND ${cmd}
    DEPENDS "${candidate}"
    COMMENT "astra-opt: verifying ${ARG_TARGET}'s rewritten ${stem} on the GPU"
    COMMAND_EXPAND_LISTS VERBATIM)
  if(ASTRA_OPT_VERIFY_TESTS)
    # The test builds nothing: build the target (or all) first.
    add_test(NAME ${ARG_NAME} COMMAND ${cmd} COMMAND_EXPAND_LISTS)
    # --verify exits 0 whatever the verdict: a refused candidate (wrong
    # results, a crash) fails the test; slower or no change does not.
    set_tests_properties(${ARG_NAME} PROPERTIES
      LABELS astra-opt-gpu SKIP_RETURN_CODE 2
      FAIL_REGULAR_EXPRESSION "verdict: refused")
  endif()
endfunction()
