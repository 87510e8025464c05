#!/usr/bin/env bash
# Regenerates the shipped models in models/ (small_cnn.onnx and its input,
# the bench suite in models/bench/, the tiny transformers in
# models/transformers/, the dynamic-dimension detector in models/dynamic/)
# from their C++ generators. Deterministic: a second run
# writes identical model bytes. BUILD_DIR=... to use another build folder
# (default build/).
#   --testdata  also rewrites the tiny transformers' and the detector's test
#               data (seeded inputs and ONNX Runtime's outputs, through
#               scripts/ort/install.sh)
#   --large     also writes BERT-base and GPT-2 small (~0.5 GB each) into
#               models/generated/, which git ignores
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
testdata=0
large=0
for arg in "$@"; do
  case "$arg" in
    --testdata) testdata=1 ;;
    --large) large=1 ;;
    *) echo "usage: $0 [--testdata] [--large]" >&2; exit 2 ;;
  esac
done
cmake --build "$build" --target make_small_cnn make_bench_models make_transformers make_dynamic_ocr
"$build/models/make_small_cnn" models
mkdir -p models/bench
"$build/models/make_bench_models" models
mkdir -p models/transformers
"$build/models/make_transformers" models/transformers bert_tiny gpt2_tiny
mkdir -p models/dynamic
"$build/models/make_dynamic_ocr" models/dynamic
if [ "$testdata" = 1 ]; then
  ort_bench="$(scripts/ort/install.sh)"
  for m in bert_tiny gpt2_tiny; do
    THREADS=1 node "$ort_bench" testdata "models/transformers/$m.onnx" "models/transformers/$m"
  done
  # Symbolic N, H, W: the shape the test pins with --input-shape.
  SHAPES="x=2x3x24x40" THREADS=1 node "$ort_bench" testdata models/dynamic/ocr_det_tiny.onnx models/dynamic/ocr_det_tiny
fi
if [ "$large" = 1 ]; then
  mkdir -p models/generated
  "$build/models/make_transformers" models/generated bert_base gpt2_small
fi
