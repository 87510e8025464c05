#!/usr/bin/env bash
# The checks of the CUDA path that need a GPU, as one script for the lent
# GPU machine (README, section "CUDA"): the `gpu` tests, the hand-written
# SGEMM and ResNet-50 3x3 convolution against cuBLAS and cuDNN, measured
# tunes of bench-suite convolutions and the shipped model, replay of the
# measured log (twice, byte-identical), and light models run on the device
# against their expected outputs.
#
# Here (a machine with the -dev packages):
#   scripts/gpu-bundle.sh && cp -r ../shared/onnx/light build-bundle/
# There (the working tree, with build-bundle/tunectl-bundle.tar.xz and
# build-bundle/light carried):
#   scripts/gpu-checks.sh OUT_DIR [TUNE_SECONDS]
#
# Every step runs under a timeout and the script goes on after a failure.
# Each step's log and the tuning logs are packed into
# OUT_DIR/gpu-checks.tar.gz (the device tool brings back few files); the
# end of each log and a summary of the steps are printed.
set -uo pipefail
cd "$(dirname "$0")/.."
dest=$(realpath -m "${1:?usage: gpu-checks.sh OUT_DIR [TUNE_SECONDS]}")
tune_seconds=${2:-100}
out=$dest/gpu-checks
mkdir -p "$out"
work=$(mktemp -d)
summary=()

step() {  # step NAME SECONDS COMMAND...: runs it, logs to OUT_DIR/NAME.log
  local name=$1 seconds=$2
  shift 2
  local start=$SECONDS
  echo "=== $name: $*"
  timeout --kill-after=5 "$seconds" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -12 "$out/$name.log"
  summary+=("$(printf '%-26s exit %3d  %4d s' "$name" "$rc" $((SECONDS - start)))")
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
tar -C "$work" -xf build-bundle/tunectl-bundle.tar.xz
t="$work/tunectl-bundle/tunectl"
light=build-bundle/light

step version 30 "$t" --version
step test_gpu 180 "$work/tunectl-bundle/test_gpu" -d yes
step bench_core 180 "$t" bench --core --target cuda --size 4096 --repeats 20

# Measured tunes: a bench-suite convolution, then the shipped model with
# replay twice (byte-identical folders) and the whole model on the device.
step tune_conv3x3 $((tune_seconds + 90)) "$t" tune models/bench/conv3x3_resnet.onnx --target cuda \
  --trials 1000 --time-budget "$tune_seconds" --log "$out/conv3x3_resnet.cuda.json" --kernels "$work/conv3x3.kernels"
step tune_small_cnn $((tune_seconds + 90)) "$t" tune models/small_cnn.onnx --target cuda \
  --trials 1000 --time-budget "$tune_seconds" --log "$out/small_cnn.cuda.json" --kernels "$work/small_cnn.kernels"
step replay_twice 120 bash -c "'$t' replay '$out/small_cnn.cuda.json' --kernels '$work/r1' &&
  '$t' replay '$out/small_cnn.cuda.json' --kernels '$work/r2' && diff -r '$work/r1' '$work/r2' && echo identical"
step bench_small_cnn 120 "$t" bench models/small_cnn.onnx --target cuda --log "$out/small_cnn.cuda.json"

# Light models with default GPU schedules, outputs against the expected ones
# (relative error of the whole output in float64).
for model in "$light"/*.onnx; do
  name=$(basename "$model" .onnx)
  input=$(python3 -c 'import onnx,sys; g = onnx.load(sys.argv[1]).graph
print(next(i.name for i in g.input if i.name not in {t.name for t in g.initializer}))' "$model")
  step "run_$name" 180 bash -c "'$t' run '$model' --target cuda --input '$input=$light/${name}_input_0.pb' \
    --output-dir '$work/$name' && python3 scripts/compare_tensors.py '$light/${name}_output_0.pb' '$work/$name'/*.pb"
done

step python_stack 60 python3 -c "import torch, onnxruntime as ort
print('torch', torch.__version__, torch.cuda.get_device_name(), 'cudnn', torch.backends.cudnn.version())
print('onnxruntime', ort.__version__, ort.get_available_providers())"

tar -C "$dest" -czf "$dest/gpu-checks.tar.gz" gpu-checks && rm -rf "$out" "$work"
echo
echo "=== summary (logs in $dest/gpu-checks.tar.gz)"
printf '%s\n' "${summary[@]}"
