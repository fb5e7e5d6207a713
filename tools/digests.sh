#!/usr/bin/env bash
# Prints the digest of every run the README and results/ quote, one line
# each ("WHAT DIGEST"), with the release build's pfmab (build/pfmab): record
# it before a refactor and compare after (`diff`), since a refactor changes
# no result. About 3 minutes on 2 cores.
#
#   tools/digests.sh > before.txt; ...; tools/digests.sh | diff before.txt -
set -euo pipefail
cd "$(dirname "$0")/.."
pfmab=${PFMAB:-build/pfmab}
digest() { /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["digest"])'; }

quickstart=(--means ../shared/data/synthetic_4x9.csv --alpha 0,0.2,0.5,0.9,1 --horizon 1e6
            --replications 1000 --seed 1)
for mode in aggregated per-pull; do
  echo "README-quickstart-$mode $("$pfmab" run "${quickstart[@]}" --mode "$mode" --quiet --json |
    digest)"
done
for experiment in results/*/experiment.toml; do
  name=$(basename "$(dirname "$experiment")")
  for preset in paper authors-code; do
    echo "$name-$preset $("$pfmab" run "$experiment" --preset "$preset" --quiet --json | digest)"
  done
done
