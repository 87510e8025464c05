#!/usr/bin/env bash
# The main job on the host CPU, end to end: builds tunectl, lists the tuning
# tasks of the shipped model, tunes it (a fresh log each time), rebuilds its
# kernels from the log alone, times it end to end with default and tuned
# schedules side by side, and runs the bench suite (tuned kernels from
# tuning_logs/ against oneDNN). TRIALS overrides the tuning budget.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
tunectl=build/cmd/tunectl
model=models/small_cnn.onnx
out=build/main-job
rm -rf "$out"
mkdir -p "$out"
echo "== tunectl tasks $model"
$tunectl tasks "$model"
echo
echo "== tunectl tune $model --trials ${TRIALS:-200}"
$tunectl tune "$model" --trials "${TRIALS:-200}" --log "$out/small_cnn.log.json" --kernels "$out/small_cnn.kernels"
echo
echo "== tunectl replay $out/small_cnn.log.json"
$tunectl replay "$out/small_cnn.log.json" --kernels "$out/replayed.kernels"
echo
echo "== tunectl bench $model --log $out/small_cnn.log.json"
$tunectl bench "$model" --log "$out/small_cnn.log.json"
echo
echo "== tunectl bench (the suite: tuned kernels from tuning_logs/ against oneDNN)"
$tunectl bench
