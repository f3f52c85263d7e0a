# Install rules, the CMake package (gltf_crowd::core, gltf_crowd::gl, gltf_crowd::gltf_crowd),
# the pkg-config file and the Debian packages (cpack -G DEB):
#   libgltf-crowd-dev  component "dev":  libraries, headers, CMake and pkg-config files
#   gltf-crowd         component "tool": the gltf-crowd command
set(GLTF_CROWD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gltf_crowd)

install(TARGETS gltf_crowd_core gltf_crowd_gl EXPORT gltf_crowdTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev NAMELINK_COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/gltf_crowd ${PROJECT_BINARY_DIR}/include/gltf_crowd
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT gltf_crowdTargets NAMESPACE gltf_crowd:: DESTINATION ${GLTF_CROWD_CMAKE_DIR}
  COMPONENT dev)

# Static libraries carry their private dependencies as link-only entries: the package finds
# them again. A shared build needs only glm (the public headers' one dependency).
if(BUILD_SHARED_LIBS)
  set(GLTF_CROWD_STATIC OFF)
else()
  set(GLTF_CROWD_STATIC ON)
endif()
configure_package_config_file(cmake/gltf_crowdConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gltf_crowdConfig.cmake INSTALL_DESTINATION ${GLTF_CROWD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gltf_crowdConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gltf_crowdConfig.cmake
  ${PROJECT_BINARY_DIR}/gltf_crowdConfigVersion.cmake
  DESTINATION ${GLTF_CROWD_CMAKE_DIR} COMPONENT dev)

# pkg-config: two modules, relocatable (prefix from the file's own place). gltf_crowd_core is
# GL-free; gltf_crowd adds the OpenGL backend. Static builds list their dependencies as public
# requirements, since nothing else links them. stb is linked by name and never required: its
# module's Cflags (-I/usr/include/stb) would reach every user's compile line.
file(RELATIVE_PATH GLTF_CROWD_PC_TO_PREFIX
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
function(gltf_crowd_pkg_config module description libs deps)
  if(GLTF_CROWD_STATIC)
    set(GLTF_CROWD_PC_REQUIRES "glm ${deps}")
    set(GLTF_CROWD_PC_REQUIRES_PRIVATE "")
    set(GLTF_CROWD_PC_LIBS "${libs} -lstb -lmeshoptimizer -pthread")
    set(GLTF_CROWD_PC_LIBS_PRIVATE "")
  else()
    set(GLTF_CROWD_PC_REQUIRES "glm")
    set(GLTF_CROWD_PC_REQUIRES_PRIVATE "${deps}")
    set(GLTF_CROWD_PC_LIBS "${libs}")
    set(GLTF_CROWD_PC_LIBS_PRIVATE "-lstb -lmeshoptimizer -pthread")
  endif()
  set(GLTF_CROWD_PC_NAME ${module})
  set(GLTF_CROWD_PC_DESCRIPTION "${description}")
  configure_file(cmake/gltf_crowd.pc.in ${PROJECT_BINARY_DIR}/${module}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${module}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
    COMPONENT dev)
endfunction()
gltf_crowd_pkg_config(gltf_crowd_core "${PROJECT_DESCRIPTION}: asset, animation, LOD, crowd and replay, GPU-free"
  "-lgltf_crowd_core" "tbb fmt tinygltf draco sqlite3")
gltf_crowd_pkg_config(gltf_crowd "${PROJECT_DESCRIPTION}: the core and its OpenGL backend"
  "-lgltf_crowd_gl -lgltf_crowd_core" "epoxy egl tbb fmt tinygltf draco sqlite3")

if(TARGET gltf-crowd)
  install(TARGETS gltf-crowd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tool)
endif()

# Debian packages for Debian 12 (bookworm).
set(CPACK_PACKAGE_NAME gltf-crowd)
set(CPACK_PACKAGE_VENDOR "gltf-crowd developers")
set(CPACK_PACKAGE_CONTACT "gltf-crowd developers <gltf-crowd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY ${PROJECT_DESCRIPTION})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL dev tool)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgltf-crowd-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "gltf-crowd C++20 library: headers, libraries, CMake package and pkg-config file\n\
Crowds of independently animated glTF 2.0 characters drawn with one instanced draw per\n\
source mesh primitive: gltf_crowd::core (asset, animation, LOD, crowd, replay; GPU-free) and\n\
gltf_crowd::gl (the OpenGL backend).")
# What find_package(gltf_crowd) and pkg-config need to link the libraries.
set(GLTF_CROWD_DEV_DEPENDS "libglm-dev, pkg-config")
if(GLTF_CROWD_STATIC)
  string(APPEND GLTF_CROWD_DEV_DEPENDS ", libtbb-dev, libtinygltf-dev, libmeshoptimizer-dev, libdraco-dev, \
libfmt-dev, nlohmann-json3-dev, libstb-dev, libsqlite3-dev, libepoxy-dev, libegl-dev, libgl-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ${GLTF_CROWD_DEV_DEPENDS})
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME gltf-crowd)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION graphics)
set(CPACK_COMPONENT_TOOL_DESCRIPTION
  "render, inspect and benchmark crowds of animated glTF characters\n\
The gltf-crowd command: render (headless through EGL), studio (GLFW window), info, pose,\n\
lod and bench.")
# Shared-library dependencies come from dpkg-shlibdeps; libepoxy opens libEGL and the EGL
# vendor (Mesa for headless rendering) at run time, so they are named here.
set(CPACK_DEBIAN_TOOL_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_TOOL_PACKAGE_DEPENDS "libegl1, libegl-mesa0 | libegl-vendor")
set(CPACK_DEBIAN_TOOL_PACKAGE_RECOMMENDS "libgl1-mesa-dri, xvfb")
include(CPack)
