#!/usr/bin/env bash
# The library as its users get it, end to end (part of scripts/test.sh):
#  1. `cmake --install` into a clean prefix; the examples built against it with find_package
#     and run; examples/minimal also built with the pkg-config file alone.
#  2. The examples built inside a project that embeds the source tree with add_subdirectory,
#     as a shared library (BUILD_SHARED_LIBS=ON): only the libraries' dependencies are looked
#     for, the libraries have a SONAME and export only the public API.
#  3. `cpack -G DEB`: libgltf-crowd-dev and gltf-crowd installed with apt-get, examples/minimal
#     built against the installed files, `gltf-crowd --version` run; removed again afterwards.
# Needs the configured and built tree of scripts/test.sh (BUILD_DIR, default build).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"

# Runs an example binary in $work and checks that it wrote a non-empty PNG.
run_example() {
  local binary=$1 png=$2
  shift 2
  (cd "$work" && "$binary" "$png" "$@")
  [ -s "$work/$png" ] || { echo "package_test: $binary wrote no $png" >&2; exit 1; }
}

echo "== 1. install into a clean prefix, find_package and pkg-config"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in lib/cmake/gltf_crowd/gltf_crowdConfig.cmake lib/cmake/gltf_crowd/gltf_crowdConfigVersion.cmake \
         lib/pkgconfig/gltf_crowd.pc lib/pkgconfig/gltf_crowd_core.pc include/gltf_crowd/crowd.hpp include/gltf_crowd/version.hpp \
         include/gltf_crowd/gl.hpp include/gltf_crowd/gl_platform.hpp include/gltf_crowd/gl_renderers.hpp \
         include/gltf_crowd/gltf_crowd_skinning.glsl \
         lib/libgltf_crowd_core.a lib/libgltf_crowd_gl.a; do
  [ -f "$work/prefix/$f" ] || { echo "package_test: install lacks $f" >&2; exit 1; }
done
for ex in minimal embed custom_shader; do
  cmake -S examples/$ex -B "$work/find-$ex" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$work/find-$ex" -j "$jobs" >/dev/null
done
run_example "$work/find-minimal/gltf_crowd_minimal" find-minimal.png
run_example "$work/find-embed/gltf_crowd_embed" find-embed.png
run_example "$work/find-custom_shader/gltf_crowd_custom_shader" find-custom_shader.png
# A version the package does not satisfy must be refused (SameMajorVersion).
mkdir -p "$work/wrong-version"
cat > "$work/wrong-version/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(wrong_version LANGUAGES CXX)
find_package(gltf_crowd 99 REQUIRED)
CMAKE
if cmake -S "$work/wrong-version" -B "$work/wrong-version/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
     >/dev/null 2>&1; then
  echo "package_test: find_package(gltf_crowd 99) was accepted" >&2; exit 1
fi
# Both pkg-config modules: their Cflags name only the prefix and glm's (no dependency's private
# include folder such as stb's), and each links a program: the GL one examples/minimal, the
# GL-free one a crowd updated without any GL library on the link line.
for module in gltf_crowd gltf_crowd_core; do
  cflags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags "$module")
  if grep -q "stb" <<<"$cflags"; then
    echo "package_test: pkg-config --cflags $module leaks a dependency's include folder: $cflags" >&2; exit 1
  fi
done
pc_flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs gltf_crowd)
# shellcheck disable=SC2086
c++ -std=c++20 -O1 examples/minimal/main.cpp -o "$work/pc-minimal" $pc_flags
run_example "$work/pc-minimal" pc-minimal.png
cat > "$work/core.cpp" <<'CPP'
#include <cstdio>
#include <memory>
#include <gltf_crowd/crowd.hpp>
#include <gltf_crowd/default_character.hpp>
int main() {
  using namespace gltf_crowd;
  auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  Crowd crowd(asset, {.capacity = 4});
  crowd.add_actors(std::vector<ActorOptions>(4));
  crowd.update(0.5f);
  std::printf("%zu actors\n", crowd.actor_count());
  return crowd.actor_count() == 4 ? 0 : 1;
}
CPP
core_flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs gltf_crowd_core)
if grep -q -E -e "-l(gltf_crowd_gl|epoxy|EGL|GL)( |$)" <<<"$core_flags"; then
  echo "package_test: gltf_crowd_core.pc links GL: $core_flags" >&2; exit 1
fi
# shellcheck disable=SC2086
c++ -std=c++20 -O1 "$work/core.cpp" -o "$work/pc-core" $core_flags
"$work/pc-core"

echo "== 2. add_subdirectory, shared libraries"
mkdir -p "$work/embedding"
cat > "$work/embedding/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(embedding LANGUAGES CXX)
add_subdirectory("$src" gltf_crowd)
add_subdirectory("$src/examples/minimal" minimal)
add_subdirectory("$src/examples/embed" embed)
add_subdirectory("$src/examples/custom_shader" custom_shader)
CMAKE
cmake -S "$work/embedding" -B "$work/embedding/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DBUILD_SHARED_LIBS=ON >/dev/null
for unwanted in CLI11_DIR GTest_DIR benchmark_DIR glfw3_DIR IMGUI_FOUND; do
  if grep -q "^$unwanted:" "$work/embedding/build/CMakeCache.txt"; then
    echo "package_test: embedding looked for $unwanted, which only the tools/tests need" >&2; exit 1
  fi
done
cmake --build "$work/embedding/build" -j "$jobs" >/dev/null
for target in gltf-crowd gltf_crowd_unit_tests gltf_crowd_gl_tests gltf_crowd_tool_tests gltf_crowd_slow_tests \
              gltf_crowd_bench; do
  if [ -e "$work/embedding/build/gltf_crowd/$target" ]; then
    echo "package_test: embedding built $target" >&2; exit 1
  fi
done
for lib in core gl; do
  so="$work/embedding/build/gltf_crowd/libgltf_crowd_$lib.so"
  soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ "$soname" = "libgltf_crowd_$lib.so.0" ] || { echo "package_test: $so SONAME '$soname'" >&2; exit 1; }
done
exported=$(nm -D -C --defined-only "$work/embedding/build/gltf_crowd/libgltf_crowd_core.so")
grep -q "gltf_crowd::load_asset(" <<<"$exported" || { echo "package_test: load_asset not exported" >&2; exit 1; }
# Internals (src/) stay hidden: the affine kernels and the evaluation plan.
if grep -E "gltf_crowd::(affine_kernels|portable_affine_kernels|make_evaluation_plan)" <<<"$exported"; then
  echo "package_test: internal symbols exported" >&2; exit 1
fi
run_example "$work/embedding/build/minimal/gltf_crowd_minimal" sub-minimal.png
run_example "$work/embedding/build/embed/gltf_crowd_embed" sub-embed.png
run_example "$work/embedding/build/custom_shader/gltf_crowd_custom_shader" sub-custom_shader.png

echo "== 3. Debian packages"
(cd "$work" && cpack --config "$src/$build/CPackConfig.cmake" -G DEB -B "$work/deb" >/dev/null)
dev_deb=$(ls "$work"/deb/libgltf-crowd-dev_*.deb)
tool_deb=$(ls "$work"/deb/gltf-crowd_*.deb)
for deb in "$dev_deb" "$tool_deb"; do
  echo "$(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
done
preinstalled=$(dpkg-query -W -f='${Status}' libgltf-crowd-dev 2>/dev/null || true)
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$dev_deb" "$tool_deb" >/dev/null
cleanup_packages() {
  case "$preinstalled" in
    *"ok installed"*) ;;
    *) DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get remove -y -qq libgltf-crowd-dev gltf-crowd >/dev/null ;;
  esac
  rm -rf "$work"
}
trap cleanup_packages EXIT
/usr/bin/gltf-crowd --version
cmake -S examples/minimal -B "$work/deb-minimal" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
grep -q "gltf_crowd_DIR:PATH=/usr/" "$work/deb-minimal/CMakeCache.txt" ||
  { echo "package_test: find_package did not take the Debian package" >&2; exit 1; }
cmake --build "$work/deb-minimal" -j "$jobs" >/dev/null
run_example "$work/deb-minimal/gltf_crowd_minimal" deb-minimal.png
echo "package_test: all stages passed"
