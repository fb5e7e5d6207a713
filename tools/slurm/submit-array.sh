#!/usr/bin/env bash
# Submits the job array (array.sbatch), then the merge (merge.sbatch) to run
# after it, from any folder: the jobs run there (parts/ and OUT.h5 are
# written there) with this script's clone's build/pfmab, or the program
# PFMAB names:
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
PFMAB=${PFMAB:-$(realpath "$here/../../build/pfmab")}

# A bad experiment fails here, once, not in every queued task.
"$PFMAB" validate "$EXPERIMENT"

# --parsable prints "jobid" or "jobid;cluster". --export takes commas as
# separators, so EXPERIMENT, OUT and PFMAB must not contain any.
array=$(sbatch --parsable --export=ALL,EXPERIMENT="$EXPERIMENT",PFMAB="$PFMAB" "$@" \
  "$here/array.sbatch")
array=${array%%;*}
dependency=afterok
if [ "$PARTIAL" = 1 ]; then dependency=afterany; fi
merge=$(sbatch --parsable --dependency="$dependency:$array" \
  --export=ALL,OUT="$OUT",PARTIAL="$PARTIAL",PFMAB="$PFMAB" "$here/merge.sbatch")
echo "array job $array, merge job ${merge%%;*} ($dependency) -> $OUT"
