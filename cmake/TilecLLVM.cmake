# LLVM 16 (Debian's llvm-16-dev) for the cpu backend's `llvm` target kind and the exec
# layer's LLVM paths (llvm_jit, native's object emission). Only those two layers link it,
# and only privately: LLVM headers never reach a public tilec header. The one shared
# libLLVM-16.so is linked rather than static components, which keeps links fast.
find_package(LLVM 16 REQUIRED CONFIG HINTS /usr/lib/llvm-16/lib/cmake/llvm)
message(STATUS "tilec: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
if(NOT TARGET LLVM)
  message(FATAL_ERROR "tilec: LLVM at ${LLVM_DIR} has no shared libLLVM; install llvm-16-dev or "
                      "configure with -DTILEC_LLVM=OFF")
endif()
add_library(tilec_llvm_dylib INTERFACE)
target_include_directories(tilec_llvm_dylib SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(tilec_llvm_definitions NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(tilec_llvm_dylib INTERFACE ${tilec_llvm_definitions})
target_link_libraries(tilec_llvm_dylib INTERFACE LLVM)

# tilec_use_llvm(TARGET SOURCES...): TARGET compiles SOURCES (its LLVM-using files) and
# links libLLVM privately; TILEC_HAVE_LLVM tells its other files the LLVM paths exist.
function(tilec_use_llvm target)
  target_sources(${target} PRIVATE ${ARGN})
  target_link_libraries(${target} PRIVATE tilec_llvm_dylib)
  target_compile_definitions(${target} PRIVATE TILEC_HAVE_LLVM=1)
endfunction()
