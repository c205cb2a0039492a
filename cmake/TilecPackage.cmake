# The installable package. `cmake --install build --prefix P` puts the tilec tool in
# P/bin, every layer library in P/lib (each layer installs itself in tilec_add_layer),
# the public headers in P/include/tilec and a CMake package in P/lib/cmake/tilec:
# find_package(tilec CONFIG) gives tilec::tilec (every layer, their include
# directory and the dependencies the public headers need) plus tilec::<layer>.
include(CMakePackageConfigHelpers)

# abi.h, dlpack_tensor.h and kernel.h include <dlpack/dlpack.h>.
find_package(dlpack CONFIG REQUIRED)

# Every layer declared so far (tilec_add_layer records them), so a new layer is
# packaged without being listed here.
get_property(tilec_package_layers GLOBAL PROPERTY TILEC_LAYER_LIBRARIES)
add_library(tilec_package INTERFACE)
target_link_libraries(tilec_package INTERFACE ${tilec_package_layers} dlpack::dlpack)
set_target_properties(tilec_package PROPERTIES EXPORT_NAME tilec)
add_library(tilec::tilec ALIAS tilec_package)
install(TARGETS tilec_package EXPORT tilecTargets)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilec DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(tilec_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
install(EXPORT tilecTargets NAMESPACE tilec:: DESTINATION ${tilec_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tilecConfig.cmake
                              INSTALL_DESTINATION ${tilec_cmake_dir})
# 0.x: a plugin is built against one minor version (the plugin ABI may change).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilecConfig.cmake ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
        DESTINATION ${tilec_cmake_dir})
