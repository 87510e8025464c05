#!/usr/bin/env bash
# The checks of the CUDA path that need a GPU, as one script for the lent
# GPU machine (README, section "CUDA"), most telling first: the `gpu`
# tests (test_gpu, and test/cli/gpu_test.sh: a short measured tune replayed
# twice byte-identical and benched, the light models against their expected
# outputs with the whole model kept on the device); small_cnn and light
# ResNet-50 compiled into GPU libraries run by their example programs; light
# ResNet-50 with a constructed log end to end against PyTorch eager and
# torch.compile of the same graph (scripts/torch_bench.py), and without the
# CUDA graph (--no-cuda-graph: what replaying the launches saves); a measured tune
# of the shipped model with its kernels folder, benched; the
# hand-written SGEMM and ResNet-50 3x3 convolution against cuBLAS and cuDNN;
# the bench suite's GPU workloads tuned and benched against cuBLAS/cuDNN
# (their logs come back, for tuning_logs/), and Nsight Compute's sections
# for the tuned kernels furthest behind; a measured tune of light
# ResNet-50 seeded by the constructed log, benched.
#
# Here (a machine with the -dev packages):
#   scripts/gpu-bundle.sh && mkdir -p build-bundle/light &&
#   cp ../shared/onnx/light/light_{resnet50,squeezenet}* build-bundle/light/ &&  # (64 MiB carried at most)
#   tunectl tune ../shared/onnx/light/light_resnet50.onnx --target "cuda -arch=sm_90" --search construct \
#     --log build-bundle/light_resnet50.cuda.json
# The tree travels too, and with the CPU logs (30 MiB) it and the bundle
# pass 64 MiB: move tuning_logs/*.llvm.json aside for the call (no step
# reads them) and back after it.
# There (the working tree, with build-bundle/tunectl-bundle.tar.xz,
# build-bundle/light and build-bundle/light_resnet50.cuda.json carried):
#   scripts/gpu-checks.sh OUT_DIR [TUNE_SECONDS [STEPS]]
# STEPS, a regular expression, picks the steps whose names it matches
# (default: all; e.g. 'profile|tune_resnet50').
#
# Every step runs under a timeout and the script goes on after a failure.
# Each step's log and the tuning logs are packed into
# OUT_DIR/gpu-checks.tar.gz (the device tool brings back few files); the
# end of each log and a summary of the steps are printed.
set -uo pipefail
cd "$(dirname "$0")/.."
dest=$(realpath -m "${1:?usage: gpu-checks.sh OUT_DIR [TUNE_SECONDS [STEPS]]}")
tune_seconds=${2:-40}
only=${3:-.}
out=$dest/gpu-checks
mkdir -p "$out"
work=$(mktemp -d)
summary=()

step() {  # step NAME SECONDS COMMAND...: runs it, logs to OUT_DIR/NAME.log
  local name=$1 seconds=$2
  shift 2
  [[ $name =~ $only ]] || return 0
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
# test_gpu reads models/ from the tree it runs in, not the one it was built in.
step test_gpu 120 env TUNECTL_SOURCE_DIR="$PWD" "$work/tunectl-bundle/test_gpu" -d yes
# A short measured tune, two byte-identical replays, bench, and the light
# models against their expected outputs (test/cli/gpu_test.sh).
step gpu_cli 300 bash test/cli/gpu_test.sh "$t" "$PWD" "$light"

# GPU libraries (`tunectl compile --target cuda`): each model's example
# program, built with cc as a user builds it, runs on the device and its
# outputs equal `tunectl run --target cuda` with the same log.
compiled_example() {  # compiled_example MODEL LOG DIR
  local model=$(realpath "$1") log=$(realpath "$2") dir=$3 name
  name=$(basename "$model" .onnx)
  "$t" compile "$model" --target cuda --log "$log" -o "$dir" || return
  cd "$dir" || return
  cc -O2 example.c -I. -L. -l"$name" -Wl,-rpath,'$ORIGIN' -o example || return
  "$t" run "$model" --seed 1 --save-inputs in/ --output-dir want/ --output-format npy >/dev/null || return
  local files=() inputs=() input
  while read -r input; do  # run --save-inputs names a file after its input, '/' and ':' made '_'
    files+=("in/$(tr '/:' '__' <<<"$input").npy")
    inputs+=(--input "$input=${files[-1]}")
  done < <(python3 -c 'import onnx, sys; g = onnx.load(sys.argv[1]).graph
print("\n".join(i.name for i in g.input if i.name not in {t.name for t in g.initializer}))' "$model")
  mkdir -p out && ./example . out/ "${files[@]}" || return
  "$t" run "$model" --target cuda --log "$log" "${inputs[@]}" --output-dir check/ --expected out/
}
export -f compiled_example
export t
step compiled_small_cnn 120 bash -c 'compiled_example "$@"' _ models/small_cnn.onnx tuning_logs/small_cnn.cuda.json \
  "$work/small_cnn.compiled"
[[ -f build-bundle/light_resnet50.cuda.json ]] &&
  step compiled_resnet50 240 bash -c 'compiled_example "$@"' _ "$light/light_resnet50.onnx" \
    build-bundle/light_resnet50.cuda.json "$work/light_resnet50.compiled"

# Light ResNet-50 end to end: the constructed log's kernels against PyTorch.
r50=$light/light_resnet50.onnx
[[ -f build-bundle/light_resnet50.cuda.json ]] && cp build-bundle/light_resnet50.cuda.json "$out/light_resnet50.cuda.json"
step bench_resnet50_constructed 120 "$t" bench "$r50" --target cuda --log "$out/light_resnet50.cuda.json" --repeats 50
# What the CUDA graph saves: the same log's kernels launched one by one.
step bench_resnet50_no_graph 120 "$t" bench "$r50" --target cuda --log "$out/light_resnet50.cuda.json" --repeats 50 \
  --no-cuda-graph
step profile_resnet50_default 60 "$t" bench "$r50" --target cuda --repeats 5 --profile
step profile_resnet50_constructed 60 "$t" bench "$r50" --target cuda --log build-bundle/light_resnet50.cuda.json \
  --repeats 5 --tuned-only --profile
step torch_resnet50 240 python3 scripts/torch_bench.py "$r50" "$light/light_resnet50_input_0.pb" \
  "$light/light_resnet50_output_0.pb" 50

# A measured tune of the shipped model for tuning_logs/ (gpu_cli above
# replays its short tune twice), the model benched with the log.
step tune_small_cnn $((tune_seconds + 60)) "$t" tune models/small_cnn.onnx --target cuda \
  --trials 1000 --time-budget "$tune_seconds" --log "$out/small_cnn.cuda.json" --kernels "$work/small_cnn.kernels"
step bench_small_cnn 60 "$t" bench models/small_cnn.onnx --target cuda --log "$out/small_cnn.cuda.json"

step bench_core 90 "$t" bench --core --target cuda --size 4096 --repeats 20

# The bench suite's GPU workloads, each tuned measured (the SGEMM twice as
# long) into OUT_DIR/gpu-checks/logs/, resuming the committed logs
# (tuning_logs/*.cuda.json) or those of an earlier call carried in
# build-bundle/logs/, then benched against cuBLAS/cuDNN.
mkdir -p "$out/logs"
cp tuning_logs/*.cuda.json "$out/logs/"
[[ -d build-bundle/logs ]] && cp build-bundle/logs/*.json "$out/logs/"
for name in gemm_4096 conv3x3_resnet conv1x1_resnet conv7x7_stem conv3x3_s2_resnet conv1x1_s2_resnet dense_bert; do
  seconds=$tune_seconds
  [[ $name == gemm_4096 ]] && seconds=$((2 * tune_seconds))
  step "suite_tune_$name" $((seconds + 60)) "$t" tune "models/bench/$name.onnx" --target cuda --trials 1000 \
    --time-budget "$seconds" --log "$out/logs/$name.cuda.json" --kernels "$work/$name.kernels"
done
step suite_bench 180 "$t" bench --target cuda --logs "$out/logs" --repeats 20
# Nsight Compute's view of the tuned kernels furthest behind the vendor:
# throughput against the chip's peaks, launch, occupancy, memory traffic.
# (`bench MODEL` names a subgraph's kernel sg_<task>.)
for name in conv1x1_s2_resnet dense_bert gemm_4096; do
  step "ncu_$name" 120 ncu --kernel-name regex:'^sg_' --launch-count 1 --section SpeedOfLight \
    --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    "$t" bench "models/bench/$name.onnx" --target cuda --log "$out/logs/$name.cuda.json" --tuned-only --repeats 1
done
mkdir -p "$work/no-logs"
step suite_bench_untuned 180 "$t" bench --target cuda --logs "$work/no-logs" --untuned --repeats 20

# Light ResNet-50 measured, each task's search seeded by its constructed program.
step tune_resnet50 $((3 * tune_seconds + 90)) "$t" tune "$r50" --target cuda --trials 2000 \
  --time-budget $((3 * tune_seconds)) --log "$out/light_resnet50.cuda.json" --kernels "$work/r50.kernels"
step bench_resnet50_tuned 90 "$t" bench "$r50" --target cuda --log "$out/light_resnet50.cuda.json" \
  --repeats 50 --tuned-only
step profile_resnet50_tuned 60 "$t" bench "$r50" --target cuda --log "$out/light_resnet50.cuda.json" \
  --repeats 5 --tuned-only --profile

tar -C "$dest" -czf "$dest/gpu-checks.tar.gz" gpu-checks && rm -rf "$out" "$work"
echo
echo "=== summary (logs in $dest/gpu-checks.tar.gz)"
printf '%s\n' "${summary[@]}"
