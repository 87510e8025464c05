#!/usr/bin/env bash
# The command line on a GPU (CTest label `gpu`; on the lent machine run it
# from the bundle: gpu_test.sh BUNDLE/tunectl REPO_DIR [LIGHT_DIR]): a short
# measured tune of the shipped model writes timed records and a kernels
# folder, its log replays twice into byte-identical folders, and `bench`
# runs the model on the device with it; the light models
# (../shared/onnx/light, or LIGHT_DIR) run with `run --target cuda` and match
# their expected outputs. Exits 77 ("skipped") where no CUDA driver or
# device is found. Usage: gpu_test.sh TUNECTL REPO_DIR [LIGHT_DIR]
set -u
tunectl=$1
repo=$2
light=${3:-$repo/../shared/onnx/light}
model=$repo/models/small_cnn.onnx
source "$(dirname "$0")/cli_lib.sh"

probe=$("$tunectl" run "$model" --target cuda --output-dir "$work/probe" 2>&1)
if grep -qF "no CUDA driver or device was found" <<<"$probe"; then
  echo "skipped: no CUDA device ($probe)"
  exit 77
fi

log=$work/small_cnn.cuda.json
expect 0 "wrote" -- "$tunectl" tune "$model" --target cuda --trials 40 --log "$log" --kernels "$work/tuned"
check "the tune timed its programs (records with costs, none estimated)" \
  test "$(grep -c '"costs":\[[0-9]' "$log")" -gt 0 -a "$(grep -c '"estimated":true' "$log")" -eq 0
expect 0 "wrote" -- "$tunectl" replay "$log" --kernels "$work/r1"
expect 0 "wrote" -- "$tunectl" replay "$log" --kernels "$work/r2"
check "two replays write byte-identical folders" diff -r "$work/r1" "$work/r2"
check "a cubin per kernel" test "$(ls "$work/r1"/*.cubin | wc -l)" -gt 0
expect 0 "tuned" -- "$tunectl" bench "$model" --target cuda --log "$log" --repeats 5

for onnx in "$light"/*.onnx; do
  [ -f "$onnx" ] || continue
  name=$(basename "$onnx" .onnx)
  mkdir -p "$work/$name.expected"
  cp "$light/${name}_output_0.pb" "$work/$name.expected/output_0.pb"
  expect 0 "outputs match the expected ones" -- "$tunectl" run "$onnx" --target cuda \
    --input "$light/${name}_input_0.pb" --expected "$work/$name.expected" --output-dir "$work/$name.out"
done

finish "gpu cli"
