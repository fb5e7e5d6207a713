#!/usr/bin/env bash
# Submits the job array (array.sbatch), then the merge (merge.sbatch) to run
# after it. From the repository's root:
#   tools/slurm/submit-array.sh [EXPERIMENT.toml [OUT.h5 [SBATCH OPTIONS...]]]
# The options are the array's, over array.sbatch's #SBATCH lines, e.g.
# --array=0-63%8 --cpus-per-task=4 --partition=short.
# The merge waits for every task to succeed (afterok). If some tasks may fail
# or time out, PARTIAL=1 starts it once all have ended, whatever their status
# (afterany), and merges what is there with --partial. Otherwise, after a
# failure, scancel the merge left waiting and run this again: finished parts
# are kept and unfinished ones continued.
set -euo pipefail

EXPERIMENT=${1:-${EXPERIMENT:-results/synthetic-quickstart/experiment.toml}}
OUT=${2:-${OUT:-out.h5}}
shift $(($# < 2 ? $# : 2))  # what is left: the array's sbatch options
PARTIAL=${PARTIAL:-0}
here=$(dirname "$0")

# A bad experiment fails here, once, not in every queued task.
build/pfmab validate "$EXPERIMENT"

# --parsable prints "jobid" or "jobid;cluster". --export takes commas as
# separators, so EXPERIMENT and OUT must not contain any.
array=$(sbatch --parsable --export=ALL,EXPERIMENT="$EXPERIMENT" "$@" "$here/array.sbatch")
array=${array%%;*}
dependency=afterok
if [ "$PARTIAL" = 1 ]; then dependency=afterany; fi
merge=$(sbatch --parsable --dependency="$dependency:$array" \
  --export=ALL,OUT="$OUT",PARTIAL="$PARTIAL" "$here/merge.sbatch")
echo "array job $array, merge job ${merge%%;*} ($dependency) -> $OUT"
