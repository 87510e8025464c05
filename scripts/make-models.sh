#!/usr/bin/env bash
# Regenerates the shipped models in models/ (small_cnn.onnx and its input,
# and the bench suite in models/bench/) from their C++ generators.
# Deterministic: a second run writes identical bytes. BUILD_DIR=... to use
# another build folder (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target make_small_cnn make_bench_models
"$build/models/make_small_cnn" models
mkdir -p models/bench
"$build/models/make_bench_models" models
