#!/usr/bin/env bash
# tools/setup.sh [--tests]
#
# Installs what pfmab needs from Debian 12's archive (only what is missing;
# apt-get runs as root or through sudo), puts the Python package on Debian's
# python3's path for this user (docs/python.md), then builds build/pfmab and
# the package's engine module, and nothing else: the README's quick start.
# With --tests, also what the test suite and the benchmarks need, and builds
# every target of the release build (tools/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

tests=false
case "${1-}" in
  "") ;;
  --tests) tests=true ;;
  *) echo "usage: tools/setup.sh [--tests]" >&2; exit 2 ;;
esac

packages=(
  build-essential cmake git
  libtbb-dev libpcg-cpp-dev libboost-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libtomlplusplus-dev libhdf5-dev hdf5-tools libeigen3-dev libisal-dev zlib1g-dev pkg-config
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-h5py python3-numpy python3-matplotlib python3-pandas
  python3-xarray python3-tqdm
)
if $tests; then
  packages+=(
    libgtest-dev libbenchmark-dev python3-pytest
    python3-nbclient python3-nbformat python3-ipykernel  # docs/notebooks/, executed by the tests
    clang-15 libfuzzer-15-dev llvm-15  # the fuzz targets, symbolized reports (tools/fuzz.sh)
  )
fi
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

# `import pfmab` in /usr/bin/python3: python/ (the package) and build/python
# (its engine module) on the path of this user's site packages, before the
# build, so that the package is found the moment its module is built.
site=$(/usr/bin/python3 -m site --user-site)
mkdir -p "$site"
printf '%s\n' "$PWD/python" "$PWD/build/python" >"$site/pfmab.pth"

if $tests; then
  cmake --preset release >/dev/null
  cmake --build --preset release
else
  # the tests and benchmarks, and the packages they need, are the test
  # command's (the release preset turns them on again)
  cmake --preset release -DPFMAB_BUILD_TESTS=OFF -DPFMAB_BUILD_BENCH=OFF >/dev/null
  cmake --build --preset release --target pfmab _pfmab
fi
