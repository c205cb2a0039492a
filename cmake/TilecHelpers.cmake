# Shared build helpers: warnings, one library per layer, one test binary per layer.

function(tilec_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(TILEC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# tilec_add_layer(NAME DEPS dep...) -> shared library tilec_NAME from src/NAME/*.cc,
# installed into the libdir and exported as tilec::NAME (cmake/TilecPackage.cmake
# gathers every declared layer into tilec::tilec, so a new layer needs nothing more).
function(tilec_add_layer name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  add_library(tilec_${name} SHARED ${sources})
  target_include_directories(tilec_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(tilec_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  tilec_set_warnings(tilec_${name})
  add_library(tilec::${name} ALIAS tilec_${name})
  # Installed layers sit next to each other, so each finds its siblings via $ORIGIN.
  set_target_properties(tilec_${name} PROPERTIES EXPORT_NAME ${name} INSTALL_RPATH "$ORIGIN")
  install(TARGETS tilec_${name} EXPORT tilecTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY TILEC_LAYER_LIBRARIES tilec_${name})
endfunction()

# tilec_runs_kernels(TARGET "<kind> [-attr=value...]" EXECUTION <execution backend>
#                    [REFUSES <text>...]), called from a backend's own src/<name>/CMakeLists.txt:
# the end-to-end tests run every kernel on this (target, execution backend) pair and compare
# it with the interpreter (tests/support/runnable_backends.h). A compile error containing
# one of the REFUSES texts is a refusal the target documents by design, so the test skips
# there with it. Declared here, in the backend's folder, so a backend that runs kernels
# needs no line in shared test code.
function(tilec_runs_kernels)
  cmake_parse_arguments(ARG "" "TARGET;EXECUTION" "REFUSES" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_EXECUTION OR ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec_runs_kernels(TARGET \"<kind> [attrs]\" EXECUTION <name> "
                        "[REFUSES <text>...]), got: ${ARGN}")
  endif()
  # The kind is the first word, the attributes the rest ("cuda -arch=sm_80").
  string(FIND "${ARG_TARGET}" " " space)
  if(space EQUAL -1)
    set(kind "${ARG_TARGET}")
    set(attributes "")
  else()
    string(SUBSTRING "${ARG_TARGET}" 0 ${space} kind)
    math(EXPR rest "${space} + 1")
    string(SUBSTRING "${ARG_TARGET}" ${rest} -1 attributes)
    string(STRIP "${attributes}" attributes)
  endif()
  get_filename_component(module ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(refusals "")
  foreach(text ${ARG_REFUSES})
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(APPEND refusals "\"${text}\", ")
  endforeach()
  set_property(GLOBAL APPEND_STRING PROPERTY TILEC_RUNNABLE_BACKENDS
    "    {\"${kind}\", \"${ARG_EXECUTION}\", \"${attributes}\", \"${module}\", {${refusals}}},\n")
endfunction()

# Every test's temporary files (TMPDIR) go under the build directory, so the build
# directories a failed kernel build keeps for its error message (tilec-build-*) and
# other test files never pile up in /tmp. The tilec_test_tmpdir fixture
# (tests/CMakeLists.txt) creates the directory before any test that needs it. Append
# these to a test's PROPERTIES; each value is a single word, so they survive
# gtest_discover_tests, which splits list-valued properties such as ENVIRONMENT "A;B".
set(TILEC_TEST_TMPDIR ${PROJECT_BINARY_DIR}/test-tmp)
set(TILEC_TEST_TMPDIR_PROPERTIES ENVIRONMENT_MODIFICATION "TMPDIR=set:${TILEC_TEST_TMPDIR}"
                                 FIXTURES_REQUIRED tilec_test_tmpdir)

# tilec_add_test_dir(LAYER DEPS dep...) -> test binary tilec_LAYER_tests from the
# calling folder's *.cc (tests/LAYER/), each TEST registered with CTest.
function(tilec_add_test_dir layer)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  if(NOT sources)
    return()
  endif()
  add_executable(tilec_${layer}_tests ${sources})
  # Paths come from tilec_build_paths (tests/build_paths.h), not compile definitions.
  target_link_libraries(tilec_${layer}_tests PRIVATE ${ARG_DEPS} tilec_build_paths GTest::gtest
                                                     GTest::gtest_main)
  if(TARGET tilec_llvm_dylib)
    # Tests of the llvm target and llvm_jit run only in builds that have them.
    target_compile_definitions(tilec_${layer}_tests PRIVATE TILEC_HAVE_LLVM=1)
  endif()
  tilec_set_warnings(tilec_${layer}_tests)
  gtest_discover_tests(tilec_${layer}_tests DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS ${layer} ENVIRONMENT "TILEC_CACHE_DIR=${PROJECT_BINARY_DIR}/test-cache"
               ${TILEC_TEST_TMPDIR_PROPERTIES})
endfunction()

# Every layer library declared with tilec_add_layer so far, bottom-up (the order of
# TILEC_LAYERS in the root CMakeLists.txt): for executables that use the whole stack (the
# tilec tool, benchmarks), and for the engine, which links every layer below it (the
# backend modules builtin_modules.cc names).
function(tilec_all_layers out)
  get_property(libs GLOBAL PROPERTY TILEC_LAYER_LIBRARIES)
  set(${out} ${libs} PARENT_SCOPE)
endfunction()

# tilec_add_test_plugins(PREFIX p FOR test_target... LIBS lib...) -> one MODULE library
# <p><name> per plugins/<name>.cc of the calling folder, built into
# ${CMAKE_CURRENT_BINARY_DIR}/plugins (which the caller points TILEC_PLUGIN_PATH at)
# before each test_target (defined first), so the file names follow the loader's naming rules.
function(tilec_add_test_plugins)
  cmake_parse_arguments(ARG "" "PREFIX" "FOR;LIBS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/plugins/*.cc)
  foreach(src ${sources})
    get_filename_component(name ${src} NAME_WE)
    set(plugin ${ARG_PREFIX}${name})
    add_library(${plugin} MODULE ${src})
    target_link_libraries(${plugin} PRIVATE ${ARG_LIBS})
    set_target_properties(${plugin} PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                                               ${CMAKE_CURRENT_BINARY_DIR}/plugins)
    tilec_set_warnings(${plugin})
    foreach(test_target ${ARG_FOR})
      if(TARGET ${test_target})
        add_dependencies(${test_target} ${plugin})
      endif()
    endforeach()
  endforeach()
endfunction()

# tilec_embed_text(TARGET INPUT NAMESPACE FUNCTION): adds to TARGET a generated source
# defining `std::string_view NAMESPACE::FUNCTION()`, the bytes of INPUT (a header or
# text that generated code or an emulated build embeds), regenerated when INPUT changes
# (cmake/embed_text.cmake), so the file stays the one source of truth.
function(tilec_embed_text target input namespace function)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${function}.gen.cc)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DNAMESPACE=${namespace}
            -DFUNCTION=${function} -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    DEPENDS ${input} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    COMMENT "Embedding ${input}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
