#!/usr/bin/env bash
# Peak memory (maximum resident set size) of the real program for a small and
# a large number of replications, with and without -o, and its ratio
# (bench/README.md, "Results pipeline"). Goal: the large run's peak within 2x
# the small one's.
#
#   bench/memory.sh [PFMAB] [SMALL] [LARGE] [HORIZON] [THREADS]
#
# PFMAB defaults to build/pfmab; SMALL, LARGE, HORIZON, THREADS to 1000,
# 100000, 1e4, 2. The experiment (written to a temporary folder, deleted at
# the end with the outputs): the synthetic 4x9 game, alpha = 0.5, Gaussian
# rewards, seed 1, the default checkpoint grid; one cell.
set -euo pipefail
cd "$(dirname "$0")/.."

pfmab=$(realpath "${1:-build/pfmab}")
small=${2:-1000}
large=${3:-100000}
horizon=${4:-1e4}
threads=${5:-2}
means=$(realpath ../shared/data/synthetic_4x9.csv)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs pfmab under /usr/bin/time -v; prints "MAXRSS_KIB ELAPSED_S".
measure() {
  /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/stdout.txt"
  awk -F': ' '/Maximum resident set size/ {rss = $2}
              /Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0
                                         for (i = 1; i <= n; ++i) s = s * 60 + t[i]; el = s}
              END {printf "%d %.2f\n", rss, el}' "$work/time.txt"
}

printf '%-8s %-10s %14s %10s  %s\n' output reps max_rss_kib wall_s digest
declare -A rss
for out in none hdf5; do
  for reps in "$small" "$large"; do
    cat >"$work/exp_$reps.toml" <<EOF
seed = 1
replications = $reps
horizon = $horizon
alpha = 0.5
[instance]
means = "$means"
EOF
    args=(run "$work/exp_$reps.toml" --quiet --threads "$threads")
    if [[ $out == hdf5 ]]; then
      rm -f "$work/out.h5"
      args+=(-o "$work/out.h5")
    fi
    read -r kib secs < <(measure "$pfmab" "${args[@]}")
    digest=$(grep -o 'digest [0-9a-f]*' "$work/stdout.txt")
    size=""
    if [[ $out == hdf5 ]]; then size="  file $(du -k "$work/out.h5" | cut -f1) KiB"; fi
    printf '%-8s %-10s %14s %10s  %s%s\n' "$out" "$reps" "$kib" "$secs" "$digest" "$size"
    rss[$out,$reps]=$kib
  done
done
for out in none hdf5; do
  awk -v a="${rss[$out,$large]}" -v b="${rss[$out,$small]}" -v o="$out" -v l="$large" -v s="$small" \
    'BEGIN {printf "peak RSS ratio (%s): R=%s / R=%s = %.3f\n", o, l, s, a / b}'
done
