#!/usr/bin/env bash
# Measures the processor time of one replication of every cell of the
# study of issue 26 (results/study/experiment.toml with the six algorithms:
# pf-ucb, pf-ucb-enhanced, local-ucb, centralized-ucb, explore-then-commit
# and pf-alloc; five alphas, four C, MovieLens 10x40 and the 20x10 game,
# T = 10^6), and prints it as study_costs.csv, which
# tests/integration/progress_eta_test.cpp replays. Each cell is run alone on
# one thread with R and 3R replications (R chosen so that the difference is
# about a second of processor time); the difference over 2R is its cost per
# replication, the set-up (C* solved once per run) cancelling. Below about
# 25 us (explore-then-commit) that is within the noise, and may come out
# negative. About 10 minutes on the 2-core machine of bench/README.md.
#
#   tests/integration/data/study_costs.sh > tests/integration/data/study_costs.csv
set -euo pipefail
cd "$(dirname "$0")/../../.."
pfmab=${PFMAB:-build/pfmab}
games=(../shared/data/movielens_10x40.csv results/study/means_20x10.csv)
TIMEFORMAT='%3U %3S'
cpu() {  # processor seconds of the command, user and system
  local t
  t=$({ time "$@" > /dev/null; } 2>&1 | tail -1)
  echo "$t" | awk '{print $1 + $2}'
}
echo "# Processor seconds per replication of each cell of the study, one thread,"
echo "# measured by tests/integration/data/study_costs.sh with pfmab at commit"
echo "# $(git rev-parse --short HEAD) on $(date -u +%F) (load $(cut -d' ' -f1 /proc/loadavg) at the start)."
echo "game,algorithm,alpha,comm_cost,seconds"
for game in "${games[@]}"; do
  for algorithm in pf-ucb pf-ucb-enhanced local-ucb centralized-ucb explore-then-commit pf-alloc; do
    costs=(0 1 10 100)
    case $algorithm in
      local-ucb | centralized-ucb) costs=(-); r=1 ;;  # about 1 s a replication; they never pay C
      pf-alloc) r=100 ;;  # about 2 ms
      *) r=200 ;;  # 0.1 to 1 ms
    esac
    for alpha in 0 0.2 0.5 0.9 1; do
      for c in "${costs[@]}"; do
        cell=(run --means "$game" --algorithm "$algorithm" --alpha "$alpha" --horizon 1e6
              --seed 2026 --threads 1 --quiet)
        [ "$c" = - ] || cell+=(--comm-cost "$c")
        once=$(cpu "$pfmab" "${cell[@]}" --replications "$r")
        thrice=$(cpu "$pfmab" "${cell[@]}" --replications $((3 * r)))
        seconds=$(awk -v a="$once" -v b="$thrice" -v r="$r" 'BEGIN {printf "%.5f", (b - a) / (2 * r)}')
        echo "$(basename "$game" .csv),$algorithm,$alpha,$c,$seconds"
      done
    done
  done
done
