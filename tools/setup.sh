#!/usr/bin/env bash
# Installs what pfmab needs from Debian 12's archive (only what is missing;
# apt-get runs as root or through sudo), then builds build/pfmab.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake git
  libtbb-dev libpcg-cpp-dev libboost-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libtomlplusplus-dev libhdf5-dev hdf5-tools
  libopenmpi-dev openmpi-bin
  libgtest-dev libbenchmark-dev python3-h5py python3-numpy python3-matplotlib
  clang-15 libfuzzer-15-dev llvm-15  # the fuzz targets, symbolized reports (tools/fuzz.sh)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake --preset release >/dev/null
cmake --build --preset release
