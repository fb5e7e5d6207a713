#!/usr/bin/env bash
# Builds oneTBB with ThreadSanitizer from Debian 12's own source package (the
# version of the installed libtbb-dev) into build-tsan-deps/tbb, once; the
# tsan preset links against it.
#
# Why: Debian's libtbb is not instrumented, so TSan cannot see the
# synchronisation inside TBB's task queues and reports every task hand-off
# (data written before tasks.run(), read inside the task) as a data race.
set -euo pipefail
cd "$(dirname "$0")/.."
deps=$PWD/build-tsan-deps
prefix=$deps/tbb
[ -f "$prefix/lib/cmake/TBB/TBBConfig.cmake" ] && exit 0

version=$(dpkg-query -W -f='${Version}' libtbb-dev)
src=$deps/src
rm -rf "$src"
mkdir -p "$src/apt/parts" "$src/apt/lists/partial"

# A private apt configuration: the machine's own Debian sources, as deb-src.
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$src/apt/parts/$(basename "$f")"
done
{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
  sed -n 's/^deb /deb-src /p' > "$src/apt/parts/from-lists.list"
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$src/apt/parts"
          -o Dir::State::Lists="$src/apt/lists" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update -qq
(cd "$src" && apt-get "${apt_opts[@]}" source -qq --download-only "onetbb=$version" &&
   dpkg-source -x --no-check ./onetbb_*.dsc onetbb >/dev/null)

cmake -S "$src/onetbb" -B "$src/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTBB_SANITIZE=thread -DTBB_TEST=OFF -DTBB_STRICT=OFF -DTBBMALLOC_BUILD=OFF \
  -DTBB_DISABLE_HWLOC_AUTOMATIC_SEARCH=ON -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
# GCC warns that TSan does not model atomic_thread_fence; oneTBB's task queues
# synchronise through acquire/release atomics, which TSan does model.
cmake --build "$src/build" -j2 >"$deps/tbb-build.log" 2>&1 ||
  { tail -40 "$deps/tbb-build.log" >&2; exit 1; }
cmake --install "$src/build" >/dev/null
rm -rf "$src"
echo "tsan-tbb: oneTBB $version with ThreadSanitizer in $prefix" >&2
