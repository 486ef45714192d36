#!/usr/bin/env bash
# Installs what eddy needs to build, run and test on Debian 12, skipping what
# is there already. Needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(
  gcc pkg-config meson ninja-build python3
  libvulkan-dev libvulkan1 libvulkan-volk-dev   # Vulkan headers, loader, volk source
  glslc libshaderc-dev glslang-dev spirv-tools  # GLSL -> SPIR-V at build and run time
  spirv-headers                                 # spirv.h: the numbers kernel.c reads shaders by
  mesa-vulkan-drivers vulkan-validationlayers   # lavapipe and the validation layer
  libcjson-dev libpng-dev                       # scene files, PNG frames
  libhdf5-dev zlib1g-dev hdf5-tools python3-h5py # checkpoints (HDF5, their CRC-32 seal); h5dump, h5py in tests
  libopenmpi-dev openmpi-bin                    # runs over MPI ranks (optional to build; tested when found)
  python3-vtk9                                  # ParaView's reader of a distributed run's .pvtp, in a test
  clang llvm                                    # sanitized build, libFuzzer, llvm-symbolizer
  cmake                                         # check-install: a CMake program through pkg-config
  abigail-tools                                 # the ABI check against the last release (tools/abi.sh)
  graphviz                                      # dot: eddy graph --dot's output rendered, in a test
  libglfw3-dev xvfb xauth                       # eddy view's window; its tests under Xvfb
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root: apt-get install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
