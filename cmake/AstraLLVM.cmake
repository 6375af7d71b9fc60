# Static linking against Debian's LLVM/Clang 22.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB=ON, so the exported clang* targets name the shared
# libLLVM in their link interface. We want a self-contained binary, so the Clang archives are
# linked by path (in a --start-group because they depend on each other cyclically) and LLVM's
# static component targets come from llvm_map_components_to_libnames.

set(ASTRA_CLANG_RESOURCE_DIR ${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR})
if(NOT EXISTS ${ASTRA_CLANG_RESOURCE_DIR}/include/__clang_cuda_runtime_wrapper.h)
  message(FATAL_ERROR "Clang resource headers not found in ${ASTRA_CLANG_RESOURCE_DIR}; "
                      "install libclang-common-22-dev")
endif()

set(ASTRA_CLANG_LIBS
  clangTooling clangToolingCore clangToolingRefactoring clangTransformer clangToolingInclusions
  clangFormat clangRewrite clangFrontend clangDriver clangOptions clangCodeGen clangParse
  clangSema clangSerialization clangAnalysis clangAnalysisLifetimeSafety clangASTMatchers clangAST clangEdit clangLex
  clangAPINotes clangSupport clangBasic)

set(ASTRA_CLANG_ARCHIVES)
foreach(lib ${ASTRA_CLANG_LIBS})
  set(path ${LLVM_LIBRARY_DIR}/lib${lib}.a)
  if(NOT EXISTS ${path})
    message(FATAL_ERROR "missing ${path}: install libclang-22-dev")
  endif()
  list(APPEND ASTRA_CLANG_ARCHIVES ${path})
endforeach()

# LLVM's static archives, in dependency order, from llvm-config. The exported
# LLVMLTO target drags in Polly through LLVMExtensions; Polly is not used, so
# the list is filtered and lib/Codegen/PollyShim.cpp satisfies the one
# registration hook that names it.
set(ASTRA_LLVM_COMPONENTS
  nvptxcodegen nvptxdesc nvptxinfo core support option passes ipo irreader irprinter
  bitreader bitwriter linker mc mcparser target targetparser transformutils scalaropts
  instcombine aggressiveinstcombine vectorize instrumentation objcarcopts coroutines coverage
  lto profiledata frontendopenmp frontendhlsl frontenddriver frontendoffloading analysis
  codegen asmprinter selectiondag windowsdriver demangle)
execute_process(
  COMMAND ${LLVM_TOOLS_BINARY_DIR}/llvm-config --libnames --link-static ${ASTRA_LLVM_COMPONENTS}
  OUTPUT_VARIABLE _llvm_libnames OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _llvm_config_rc)
if(NOT _llvm_config_rc EQUAL 0)
  message(FATAL_ERROR "llvm-config --libnames failed")
endif()
separate_arguments(_llvm_libnames UNIX_COMMAND "${_llvm_libnames}")
set(ASTRA_LLVM_LIBS)
foreach(name ${_llvm_libnames})
  if(name MATCHES "Polly")
    continue()
  endif()
  list(APPEND ASTRA_LLVM_LIBS ${LLVM_LIBRARY_DIR}/${name})
endforeach()
find_package(ZLIB REQUIRED)
find_library(ZSTD_LIBRARY NAMES zstd REQUIRED)
list(APPEND ASTRA_LLVM_LIBS ZLIB::ZLIB ${ZSTD_LIBRARY} pthread rt dl m)

# Everything that uses Clang (or LLVM) links this interface target.
add_library(AstraClang INTERFACE)
target_include_directories(AstraClang SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_link_libraries(AstraClang INTERFACE
  -Wl,--start-group ${ASTRA_CLANG_ARCHIVES} -Wl,--end-group ${ASTRA_LLVM_LIBS})

add_library(AstraLLVM INTERFACE)
target_link_libraries(AstraLLVM INTERFACE ${ASTRA_LLVM_LIBS})
