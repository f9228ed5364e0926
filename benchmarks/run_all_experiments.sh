#!/usr/bin/env bash
# Run every experiment config in experiments/ one at a time (niced), record the wall time
# of each, then write the comparison report. Numbers land in MLflow (mlflow.yaml) and in
# $OUT: summary.txt (headline line per experiment), times.txt, <config>.log, report.md.
#
#   PYTHON=/work/venv/bin/python benchmarks/run_all_experiments.sh
#   CONFIGS="cra-3fold art-to-cra" JOBS=1 benchmarks/run_all_experiments.sh
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-2}
OUT=${OUT:-runs/experiments}
CONFIGS=${CONFIGS:-"cra-3fold cra-3fold-plus-art art-to-cra cra-to-art art-9fold art+cra-to-oa-stm oa-stm-leave-one-domain-out csabstruct"}
mkdir -p "$OUT"
echo "# $(date -u +%FT%TZ) jobs=$JOBS $(nproc) cores" >> "$OUT/times.txt"
done_configs=()
total_start=$(date +%s)
for c in $CONFIGS; do
  start=$(date +%s)
  if nice -n 10 "$PYTHON" -m coresc experiment "$c" --jobs "$JOBS" \
      >> "$OUT/summary.txt" 2> "$OUT/$c.log"; then
    status=ok
    done_configs+=("$c")
  else
    status="failed (exit $?, see $OUT/$c.log)"
  fi
  echo "$c: $status, wall $(( $(date +%s) - start ))s" | tee -a "$OUT/times.txt"
done
echo "all: wall $(( $(date +%s) - total_start ))s" | tee -a "$OUT/times.txt"
if [ ${#done_configs[@]} -gt 0 ]; then
  "$PYTHON" -m coresc report "${done_configs[@]}" -o "$OUT/report.md"
fi
