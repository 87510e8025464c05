#!/usr/bin/env bash
# `tunectl compile MODEL` as a user deploys with it: the shipped model with its
# committed log and light SqueezeNet compiled into libNAME.so; example.c built
# against the library alone (cc, no tunectl headers or libraries) and run on
# .npy inputs; its outputs checked against `tunectl run` (default schedules)
# and ONNX's expected outputs; no LLVM, ONNX or protobuf in ldd's list; the
# library run from several threads at once; a library for a CPU feature
# this machine lacks; a GPU library built here; bad input.
# Usage: compile_test.sh TUNECTL REPO_DIR
set -u
tunectl=$1
repo=$2
source "$(dirname "$0")/cli_lib.sh"

model=$repo/models/small_cnn.onnx
squeeze=$repo/../shared/onnx/light/light_squeezenet

# build_example DIR NAME: example.c built against DIR/libNAME.so alone.
build_example() {
  (cd "$1" && cc -O2 -Wall -Werror example.c -I. -L. -l"$2" -Wl,-rpath,'$ORIGIN' -o example)
}

# The shipped model, tuned: the log's schedules for all of its tasks (the
# committed log this CPU runs, host_cnn_log). A CPU that runs none compiles
# it with default schedules, so that the library's own checks below still run.
if host_cnn_log "$tunectl"; then
  expect 0 "tuned schedules from $host_log for 7 of 7 tasks" -- "$tunectl" compile "$model" --log "$host_log" \
    --target "$host_cpu" -o "$work/cnn"
else
  skip 1 "this CPU runs the code of no committed small_cnn log: the library below has default schedules"
  expect 0 "compiled $model" -- "$tunectl" compile "$model" -o "$work/cnn"
fi
for f in libsmall_cnn.so small_cnn.weights small_cnn.h example.c; do
  check "compile wrote $f" test -s "$work/cnn/$f"
done
check "example.c builds against the library alone" build_example "$work/cnn" small_cnn
libs=$(ldd "$work/cnn/example" "$work/cnn/libsmall_cnn.so")
check "neither the example nor the library needs LLVM, ONNX or protobuf" \
  bash -c '! grep -Eiq "llvm|onnx|protobuf" <<<"$0"' "$libs"
expect 0 "output float32 [1x10]" -- "$tunectl" run "$model" --seed 7 --save-inputs "$work/cnn-in" \
  --output-format npy --output-dir "$work/cnn-want"
mkdir -p "$work/cnn-out"
expect 0 "output: $work/cnn-out/output.npy" -- "$work/cnn/example" "$work/cnn" "$work/cnn-out" "$work/cnn-in/input.npy"
expect 0 "outputs match the expected ones in $work/cnn-out" -- "$tunectl" run "$model" \
  --input "input=$work/cnn-in/input.npy" --output-dir "$work/cnn-check" --expected "$work/cnn-out"

# Several threads at once: their own instances, and one shared instance.
mkdir -p "$work/inc" && cp "$work/cnn/small_cnn.h" "$work/inc/model.h"
check "the threads test builds" cc -O2 -Wall -Werror "$repo/test/deploy/threads.c" -I"$work/inc" \
  -L"$work/cnn" -lsmall_cnn -Wl,-rpath,"$work/cnn" -pthread -o "$work/threads"
expect 0 "all outputs equal the single-threaded run" -- "$work/threads" "$work/cnn" 4 20

# Light SqueezeNet without a log: default schedules, ONNX's expected output.
expect 0 "compiled $squeeze.onnx" -- "$tunectl" compile "$squeeze.onnx" -o "$work/squeeze"
check "SqueezeNet's example builds" build_example "$work/squeeze" light_squeezenet
expect 0 "softmaxout_1 float32 [1x1000x1x1]" -- "$tunectl" run "$squeeze.onnx" --input "data_0=${squeeze}_input_0.pb" \
  --save-inputs "$work/squeeze-in" --output-dir "$work/squeeze-run"
mkdir -p "$work/squeeze-out"
expect 0 ".npy" -- "$work/squeeze/example" "$work/squeeze" "$work/squeeze-out" "$work/squeeze-in/data_0.npy"
mkdir -p "$work/squeeze-onnx" && cp "${squeeze}_output_0.pb" "$work/squeeze-onnx/output_0.pb"
expect 0 "outputs match the expected ones in $work/squeeze-onnx" -- "$tunectl" run "$squeeze.onnx" \
  --input "data_0=$work/squeeze-in/data_0.npy" --output-dir "$work/squeeze-check" --expected "$work/squeeze-onnx"
check "the example's SqueezeNet output is the run's" cmp -s "$work/squeeze-out/"*.npy "$work/squeeze-check/"*.npy

# A transformer (integer token ids in, gathers, matmuls, softmax) against its expected output.
bert=$repo/models/transformers/bert_tiny
expect 0 "compiled $bert.onnx" -- "$tunectl" compile "$bert.onnx" -o "$work/bert"
check "BERT's example builds" build_example "$work/bert" bert_tiny
expect 0 "last_hidden_state float32 [1x16x64]" -- "$tunectl" run "$bert.onnx" --input "input_ids=${bert}_input_0.pb" \
  --save-inputs "$work/bert-in" --output-dir "$work/bert-run"
mkdir -p "$work/bert-out" "$work/bert-onnx" && cp "${bert}_output_0.pb" "$work/bert-onnx/output_0.pb"
expect 0 "last_hidden_state: $work/bert-out/last_hidden_state.npy" -- "$work/bert/example" "$work/bert" \
  "$work/bert-out" "$work/bert-in/input_ids.npy"
expect 0 "outputs match the expected ones in $work/bert-onnx" -- "$tunectl" run "$bert.onnx" \
  --input "input_ids=$work/bert-in/input_ids.npy" --output-dir "$work/bert-check" --expected "$work/bert-onnx"
expect 0 "outputs match the expected ones in $work/bert-out" -- "$tunectl" run "$bert.onnx" \
  --input "input_ids=$work/bert-in/input_ids.npy" --output-dir "$work/bert-check" --expected "$work/bert-out"

# A library for a CPU feature this machine lacks refuses to load, naming it.
if foreign_cpu "$tunectl" "$work/foreign-probe"; then
  expect 0 "for $foreign_target" -- "$tunectl" compile "$model" --layout nchw \
    --target "$foreign_target" -o "$work/foreign"
  check "the example for $foreign_target builds" build_example "$work/foreign" small_cnn
  expect 1 "compiled for '$foreign_target', and this CPU lacks features its kernels use: " -- \
    "$work/foreign/example" "$work/foreign" "$work/cnn-out" "$work/cnn-in/input.npy"
  expect 1 "$foreign_feature" -- "$work/foreign/example" "$work/foreign" "$work/cnn-out" "$work/cnn-in/input.npy"
else
  skip 4 "this CPU runs both Sapphire Rapids' and Zen 5's code; no library for a missing feature to refuse"
fi

# A GPU library: cubins, the same C API and example; without a driver the
# example says so (test_deploy_gpu runs one through a stand-in driver).
expect 0 "tuned schedules from $repo/tuning_logs/small_cnn.cuda.json for 7 of 7 tasks" -- "$tunectl" compile \
  "$model" --target "cuda -arch=sm_90" --log "$repo/tuning_logs/small_cnn.cuda.json" -o "$work/gpu"
check "the GPU library's example builds" build_example "$work/gpu" small_cnn
check "the GPU library links nothing of CUDA" bash -c '! ldd "$0" | grep -qi cuda' "$work/gpu/libsmall_cnn.so"
if ! ldconfig -p | grep -q libcuda.so.1; then
  expect 1 "running CUDA kernels needs a GPU: no CUDA driver" -- "$work/gpu/example" "$work/gpu" "$work/cnn-out" \
    "$work/cnn-in/input.npy"
fi

# Bad input: a missing weights file, a wrong input file.
cp -r "$work/cnn" "$work/cnn-noweights" && rm "$work/cnn-noweights/small_cnn.weights"
expect 1 "cannot open the weights file $work/cnn-noweights/small_cnn.weights" -- \
  "$work/cnn/example" "$work/cnn-noweights" "$work/cnn-out" "$work/cnn-in/input.npy"
expect 1 "is not a .npy file of 12288 data bytes" -- "$work/cnn/example" "$work/cnn" "$work/cnn-out" "$model"
expect 1 "small_cnn takes 1 inputs: input" -- "$work/cnn/example" "$work/cnn" "$work/cnn-out"
expect 1 "--output-dir is required" -- "$tunectl" compile "$model"

finish "compile cli"
