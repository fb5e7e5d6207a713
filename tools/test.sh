#!/usr/bin/env bash
# The whole test suite: sets up and builds (tools/setup.sh), runs the
# concurrency tests under ThreadSanitizer (tsan preset, against a oneTBB built
# with TSan by tools/tsan-tbb.sh), then every test of the release build.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
tools/tsan-tbb.sh
cmake --preset tsan >/dev/null
cmake --build --preset tsan --target concurrency_tests
# halt_on_error: any race report fails the test
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" ctest --preset tsan
ctest --preset release
