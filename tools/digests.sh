#!/usr/bin/env bash
# Prints the digest of every run the README and results/ quote, and of runs
# down the engine's other paths (Bernoulli rewards, sigma 0.7 and 0, both
# modes and presets, the enhanced lengths, the UCB, kl-UCB and Thompson baselines,
# partial participation), one line each ("WHAT DIGEST"), with the release build's
# pfmab (build/pfmab): record it before a refactor and compare after, since
# a refactor changes no result. Most of its time is results/tight-bound's two
# runs, about 10 minutes each on 2 cores.
#
#   tools/digests.sh > before.txt; ...; tools/digests.sh | diff before.txt -
set -euo pipefail
cd "$(dirname "$0")/.."
pfmab=${PFMAB:-build/pfmab}
data=../shared/data
digest() { /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["digest"])'; }
run() { echo "$1 $("$pfmab" run "${@:2}" --quiet --json | digest)"; }

quickstart=(--means $data/synthetic_4x9.csv --alpha 0,0.2,0.5,0.9,1 --horizon 1e6
            --replications 1000 --seed 1)
for mode in aggregated per-pull; do
  run "README-quickstart-$mode" "${quickstart[@]}" --mode "$mode"
done
for experiment in results/*/experiment.toml; do
  name=$(basename "$(dirname "$experiment")")
  [ "$name" = study ] && continue  # not the paper's: minutes of MovieLens baselines
  for preset in paper authors-code; do
    run "$name-$preset" "$experiment" --preset "$preset"
  done
done

for rewards in "bernoulli" "gaussian --sigma 0.7" "gaussian --sigma 0"; do
  for mode in aggregated per-pull; do
    for preset in paper authors-code; do
      horizon=1e6; [ $mode = per-pull ] && horizon=1e5
      # shellcheck disable=SC2086
      run "pf-ucb-${rewards// /}-$mode-$preset" --means $data/synthetic_4x9.csv --rewards $rewards \
        --alpha 0,0.5,1 --horizon $horizon --replications 200 --seed 3 --mode $mode \
        --preset $preset --algorithm pf-ucb,pf-ucb-enhanced
    done
  done
  # shellcheck disable=SC2086
  run "baselines-${rewards// /}" --means $data/synthetic_4x9.csv --rewards $rewards \
    --alpha 0.2,1 --horizon 2e4 --replications 40 --seed 4 --algorithm local-ucb,centralized-ucb
  # shellcheck disable=SC2086
  run "kl-baselines-${rewards// /}" --means $data/synthetic_4x9.csv --rewards $rewards \
    --alpha 0.2,1 --horizon 2e4 --replications 40 --seed 4 \
    --algorithm local-kl-ucb,centralized-kl-ucb
done
# the enhancement game: every mean positive, as exponential rewards need
for rewards in bernoulli gaussian poisson exponential; do
  run "thompson-$rewards" --means $data/enhancement_4x9.csv --rewards $rewards --alpha 0.2,1 \
    --horizon 2e4 --replications 20 --seed 4 --algorithm local-thompson,centralized-thompson
done
run "movielens-bernoulli-authors-code-q0.7" --means $data/movielens_10x40.csv --rewards bernoulli \
  --alpha 0.5 --horizon 2e6 --replications 100 --seed 5 --preset authors-code --participation 0.7
run "synthetic-S3-participants" --means $data/synthetic_4x9.csv --alpha 0,0.5 --horizon 1e6 \
  --replications 200 --seed 6 --participants 3 --aggregate participants
