#!/usr/bin/env bash
# Builds the libFuzzer targets (the fuzz preset: clang-15, AddressSanitizer
# and UndefinedBehaviorSanitizer; build-fuzz/) and runs them from the seed
# corpus in fuzz/corpus/ (docs/fuzzing.md says what each target checks).
#
#   tools/fuzz.sh smoke [SECONDS]
#       every target for SECONDS (default 60) from its seeds, as
#       tools/test.sh does; fails on the first finding.
#   tools/fuzz.sh run TARGET SECONDS [libFuzzer flags...]
#       a campaign of one target (experiment, means_csv or results); its
#       corpus grows in build-fuzz/corpus/TARGET, findings go to
#       build-fuzz/findings/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build-fuzz
targets=(experiment means_csv results)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target pfmab "${targets[@]/%/_fuzzer}"

# Leaks fail a run, but HDF5's own of a failed open (tools/lsan.supp).
export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tools/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-15/bin/llvm-symbolizer  # llvm-15

# TARGET's corpus directory: the committed seeds, and for the output reader
# outputs this build's pfmab writes (100-200 KB each, too large to commit):
# a whole run, a shard, and a partial merge of that shard.
corpus() {
  local target=$1 dir=$build/corpus/$1
  mkdir -p "$dir"
  if [ "$target" = results ]; then
    local experiment=$root/fuzz/results_seeds/two_cells.toml
    local tmp
    tmp=$(mktemp -d)
    "$build/pfmab" run "$experiment" -o "$tmp/whole.h5" --quiet >/dev/null
    "$build/pfmab" run "$experiment" --shard 0/2 -o "$tmp/shard.h5" --quiet >/dev/null
    "$build/pfmab" merge "$tmp/shard.h5" --partial -o "$tmp/partial.h5" >/dev/null
    cp "$tmp"/*.h5 "$dir/"
    rm -rf "$tmp"
  else
    cp "$root/fuzz/corpus/$target"/* "$dir/"
  fi
  echo "$dir"
}

# One libFuzzer run of TARGET for SECONDS; the rest of the arguments are
# libFuzzer flags.
run() {
  local target=$1 seconds=$2
  shift 2
  local dict=()
  [ -f "$root/fuzz/$target.dict" ] && dict=(-dict="$root/fuzz/$target.dict")
  local dir
  dir=$(corpus "$target")
  mkdir -p "$build/findings/$target"
  "$build/fuzz/${target}_fuzzer" "$dir" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$build/findings/$target/" -print_final_stats=1 "$@"
}

case "${1:-}" in
  smoke)
    for target in "${targets[@]}"; do
      echo "fuzz: $target for ${2:-60} s" >&2
      run "$target" "${2:-60}" 2>"$build/smoke-$target.log" ||
        { tail -n 60 "$build/smoke-$target.log" >&2; exit 1; }
      grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)' \
        "$build/smoke-$target.log" >&2 || true
    done
    ;;
  run)
    [ $# -ge 3 ] || { echo "usage: tools/fuzz.sh run TARGET SECONDS [libFuzzer flags...]" >&2; exit 2; }
    target=$2 seconds=$3
    shift 3
    run "$target" "$seconds" "$@"
    ;;
  *)
    echo "usage: tools/fuzz.sh smoke [SECONDS] | run TARGET SECONDS [libFuzzer flags...]" >&2
    exit 2
    ;;
esac
