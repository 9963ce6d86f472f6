#!/bin/bash
# Grade a class on a Slurm cluster: its shards as one job array, then the merge, which starts
# only once every shard has succeeded (--dependency=afterok on the array: all of its tasks).
#
#   KIT=/shared/kit EXPORT=/shared/exports/canvas.zip ASSIGNMENT=mha RESULTS=/shared/results/mha \
#   SHARDS=8 docs/deploy/slurm/grade-class.sh [SBATCH OPTIONS...]
#
# KIT        this repository on a file system every node reads, with its .venv built (make .venv/.installed)
# EXPORT     the LMS's export (a zip or a folder), on that shared file system
# ASSIGNMENT the kit's assignment (mha, encoder_block, attention_numpy)
# RESULTS    where the shards and the class go: RESULTS/shard-I/, RESULTS/class/, RESULTS/logs/
# SHARDS     how many shards (array tasks); each grades the students whose key hashes to it
# optional:  GRADE_OPTIONS (grade-all's, e.g. "--device cuda"), MERGE_OPTIONS (e.g. "--lms-column-id 123"),
#            KIT_PYTHON (default $KIT/.venv/bin/python)
# SBATCH OPTIONS go to both jobs and win over the scripts' #SBATCH lines (e.g. --partition=gpu --gres=gpu:1).
#
# A shard that exits non-zero (3: the kit failed on a student; the log says who) holds the merge:
# it is cancelled (--kill-on-invalid-dep). Run that shard again, which grades only what is left,
# then the merge:   SHARDS=8 ... sbatch --array=3 docs/deploy/slurm/shard.sbatch
#                   SHARDS=8 ... sbatch docs/deploy/slurm/merge.sbatch
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${KIT:?set KIT to the folder of this repository}" "${EXPORT:?set EXPORT to the LMS export}"
: "${ASSIGNMENT:?set ASSIGNMENT}" "${RESULTS:?set RESULTS to a folder for the results}"
: "${SHARDS:?set SHARDS to the number of shards}"
export KIT EXPORT ASSIGNMENT RESULTS SHARDS
mkdir -p "$RESULTS/logs"
chmod go-rwx "$RESULTS"  # the students' results are the instructor's alone
array=$(sbatch --parsable --array="1-$SHARDS" --output="$RESULTS/logs/shard-%a.log" "$@" "$here/shard.sbatch")
array=${array%%;*}  # --parsable prints "id;cluster" on a federated cluster
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$RESULTS/logs/merge.log" "$@" "$here/merge.sbatch")
merge=${merge%%;*}
echo "shards: job array $array ($SHARDS tasks); merge: job $merge, once every shard has succeeded"
echo "the class: $RESULTS/class/ (summary.csv, report.html, ...); logs: $RESULTS/logs/"
