#!/usr/bin/env bash
# The whole test suite: sets up and builds everything (tools/setup.sh --tests), runs the
# concurrency tests under ThreadSanitizer (tsan preset, against a oneTBB built
# with TSan by tools/tsan-tbb.sh), the unit and integration tests under
# AddressSanitizer and UndefinedBehaviorSanitizer (asan preset), a minute of
# each fuzz target (tools/fuzz.sh smoke), then every test of the release build.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh --tests
tools/tsan-tbb.sh
cmake --preset tsan >/dev/null
cmake --build --preset tsan --target concurrency_tests
# halt_on_error: any race report fails the test
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" ctest --preset tsan
# every ASan, UBSan or leak report fails the test (the asan preset's options)
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan
tools/fuzz.sh smoke
ctest --preset release
