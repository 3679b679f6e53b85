#!/usr/bin/env bash
# Installs the Debian 12 packages stencilrt needs, if any are missing.
# Runs as root, or through sudo. Used by `make render` and `make test`.
set -euo pipefail
PKGS=(
  # build
  cmake ninja-build g++ pkg-config git
  # libraries (third_party/README.md)
  libglm-dev libjpeg-dev nlohmann-json3-dev libcli11-dev libgtest-dev libopenexr-dev libpng-dev libtinygltf-dev
  librandom123-dev libboost-dev libfast-float-dev
  # viewer: GLFW, OpenGL, GLAD generator, Dear ImGui
  libglfw3-dev libgl-dev python3-glad libimgui-dev
  # tests: POV-Ray (image oracle), Xvfb + Mesa (viewer), clang (fuzzing), matplotlib (bench plot)
  povray xvfb xauth libgl1-mesa-dri clang libclang-rt-14-dev python3-matplotlib xz-utils
  # tests: OpenEXR's own tools (exrheader) read our EXR files; assimp writes glTF we did not
  openexr assimp-utils
  # tools/bvh-bench: Embree 3, the CPU builder we measure ours against
  libembree-dev
  # tests: a one-node Slurm cluster (tests/slurm)
  slurmctld slurmd slurm-client munge
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PKGS[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
