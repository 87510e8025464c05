#!/usr/bin/env bash
# The main job on the host CPU, end to end: builds tunectl, lists the tuning
# tasks of the shipped model, runs it on its input, times it end to end with
# default schedules, and benchmarks the core matmul against oneDNN.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
tunectl=build/cmd/tunectl
model=models/small_cnn.onnx
echo "== tunectl tasks $model"
$tunectl tasks "$model"
echo
echo "== tunectl run $model"
$tunectl run "$model" --input input=models/small_cnn_input_0.pb --output-dir build/main-job-out
echo
echo "== tunectl bench $model"
$tunectl bench "$model"
echo
echo "== tunectl bench (1024^3 matmul: naive, hand schedule, oneDNN)"
$tunectl bench
