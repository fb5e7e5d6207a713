#!/usr/bin/env bash
# Installs what pfmab needs from Debian 12's archive (only what is missing;
# apt-get runs as root or through sudo), then builds build/pfmab and the
# Python package's engine module, and puts the package on Debian's
# python3's path for this user (docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake git
  libtbb-dev libpcg-cpp-dev libboost-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libtomlplusplus-dev libhdf5-dev hdf5-tools libeigen3-dev libisal-dev zlib1g-dev pkg-config
  libopenmpi-dev openmpi-bin
  libgtest-dev libbenchmark-dev python3-h5py python3-numpy python3-matplotlib
  pybind11-dev python3-dev python3-pandas python3-xarray python3-tqdm python3-pytest
  python3-nbclient python3-nbformat python3-ipykernel  # docs/notebooks/, executed by the tests
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

# `import pfmab` in /usr/bin/python3: python/ (the package) and build/python
# (its engine module) on the path of this user's site packages.
site=$(/usr/bin/python3 -m site --user-site)
mkdir -p "$site"
printf '%s\n' "$PWD/python" "$PWD/build/python" >"$site/pfmab.pth"
