#!/usr/bin/env bash
# `tunectl tune` as a user meets it: a short tune of the shipped model writes
# a log and a kernels folder, a second run resumes from the log and adds new
# records, a named CPU target reaches the records, the manifest and the object
# code, a log of another target is not applied by replay and bench, an
# interrupt still writes kernels and exits 130, float16 node tests match in
# the GPU emulator, and bad flags or
# an unsupported target fail with the documented exit codes (1 bad command line, 2 user
# error). Usage: tune_test.sh TUNECTL REPO_DIR
set -u
tunectl=$(realpath "$1")
repo=$2
model=$repo/models/small_cnn.onnx
source "$(dirname "$0")/cli_lib.sh"
run_dir=$work  # default log and kernels paths land here

# The default target is llvm.
# The run ends with its runoff (--runoff 4 by default): each task's fastest
# programs, up to 4, timed again side by side, one record each.
expect 0 "runoff: up to 4 programs of each of" -- "$tunectl" tune "$model" \
  --layout nchw --trials 24 --jobs 2
log=$work/small_cnn.log.json
check "the default log exists" test -f "$log"
runoffs=$(grep -c '"runoff":true' "$log")
check "1 to 28 runoff records (got $runoffs)" test "$runoffs" -ge 1 -a "$runoffs" -le 28
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
check "24 measured records in the log (got $((lines - runoffs)))" test $((lines - runoffs)) -eq 24
# (24 trials in rounds of 4 may leave a task of the 7 unmeasured.)
"$tunectl" log best "$log" -o "$work/small_cnn.best.json" >/dev/null
best_runoffs=$(grep -c '"runoff":true' "$work/small_cnn.best.json")
best_tasks=$(wc -l <"$work/small_cnn.best.json")
check "every task's best is its runoff's winner (got $best_runoffs of $best_tasks)" test "$best_runoffs" -eq "$best_tasks"
check "records are JSON lines of the format" grep -q '"v":2' "$log"
check "the kernels folder has a manifest" test -f "$work/small_cnn.kernels/manifest.json"
check "the kernels folder has the shared library" test -f "$work/small_cnn.kernels/libtunectl_kernels.so"

# --runoff 0: no runoff; the runoff records count as no trial on resume.
before=$(wc -l <"$log")
expect 0 "24 resumed" -- "$tunectl" tune "$model" --layout nchw --trials 8 --jobs 2 --log "$log" \
  --kernels "$work/k2" --no-cost-model --policy round-robin --runoff 0
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
check "the resumed run added 8 records (got $((lines - before)))" test $((lines - before)) -eq 8
expect 1 "--runoff" -- "$tunectl" tune "$model" --runoff -1
check "the second kernels folder has a manifest" test -f "$work/k2/manifest.json"

# The issue's end-to-end path: tune -> replay (twice, byte-identical, and
# equal to what tune wrote) -> bench with the log.
expect 0 "wrote 7 kernels" -- "$tunectl" replay "$log" --kernels "$work/r1"
expect 0 "wrote 7 kernels" -- "$tunectl" replay "$log" --kernels "$work/r2"
check "two replays give byte-identical kernels folders" diff -r "$work/r1" "$work/r2"
check "replay rebuilds exactly the kernels tune wrote" diff -r "$work/r1" "$work/k2"
expect 0 "speedup" -- "$tunectl" bench "$model" --log "$log" --repeats 3

# --layout auto (the default): a first round of every task of the four
# candidates (small_cnn's three 3x3 convolutions direct and by Winograd
# F(4x4) and F(2x2)), nchw's own tasks last, then the faster layout's tasks;
# a second run decides from the log.
expect 0 "layout auto: tuning the 19 tasks of the 4 layouts (nchwc 8, winograd 8, winograd-f2 8, nchw 7) for 19 trials" -- \
  "$tunectl" tune "$model" --trials 28 --jobs 2 --log "$work/auto.log.json" --kernels "$work/auto.kernels" --runoff 0
check "the auto run measured 28 programs" test "$(wc -l <"$work/auto.log.json")" -eq 28
resumed=$("$tunectl" tune "$model" --trials 2 --jobs 2 --log "$work/auto.log.json" --kernels "$work/auto.kernels" 2>&1)
check "a resumed auto run chooses Winograd convolution by convolution" \
  grep -q "^layout auto: Winograd for [0-3] of 3 3x3 stride-1 convolutions" <<<"$resumed"
check "a resumed auto run decides from the log" \
  grep -qE "^layout [a-z0-9+-]+ \(auto; the log's sum of weight x best: (nchwc|winograd|winograd-f2|nchwc\+winograd) .* ms, nchw (.* ms|not covered)\)" <<<"$resumed"
check "a resumed auto run measures no layout again" test "$(grep -c "tuning the 19 tasks" <<<"$resumed")" -eq 0
# nchw's measured tasks alone slower than all of nchwc's: it cannot win, so
# its other tasks are not measured (the first round ends there, and a log
# that shows it decides). Here: nchwc's records (gemm and softmax are both
# layouts') and one of nchw's own convolutions, a valid record made to take a
# second (a failed candidate's record would count for nothing).
grep -E '"name":"([a-z_0-9]*nchwc[a-z_0-9]*|gemm_6|softmax_7)","target"' "$work/auto.log.json" >"$work/nchw-lost.json"
grep -v nchwc "$work/auto.log.json" | grep '"error":"none"' | grep -m1 '"name":"conv2d_' |
  sed 's/"costs":\[[^]]*\]/"costs":[1.0]/' >>"$work/nchw-lost.json"
lost=$("$tunectl" tune "$model" --trials 1 --jobs 2 --log "$work/nchw-lost.json" --kernels "$work/nchw-lost.kernels" 2>&1)
check "nchw lost: the log decides" \
  grep -q "^layout auto: by the log, nchw's measured tasks sum to 1000 ms, above all of nchwc's .* ms: its [1-7] other tasks are left untuned" <<<"$lost"
check "nchw lost: no layout measured" test "$(grep -c "tuning the 19 tasks" <<<"$lost")" -eq 0
# (Blocked, each 3x3 convolution direct or by Winograd as its first-round
# times say: nchwc, nchwc+winograd, winograd or winograd-f2.)
check "nchw lost: a blocked layout is chosen" grep -qE "^layout (nchwc|winograd)[a-z0-9+-]* \(auto; .* nchw not covered\)" <<<"$lost"
# The choice follows the records, convolution by convolution: without the
# direct 3x3 convolutions' records every one runs by Winograd; without the
# Winograd records none does; without the first one's Winograd records
# either, two do and that mixed graph is not covered.
# (The first convolution's tasks take in its input's transform: to_nchwc_conv2d_...)
drop() { grep -v "\"name\":\"\(to_nchwc_\)\?$1[a-z_0-9]*\",\"target\"" "$work/auto.log.json"; }
drop conv2d_nchwc >"$work/no-direct.json"
drop conv2d_winograd_nchwc >"$work/no-winograd.json"
drop conv2d_winograd_nchwc_relu_0 | grep -vE '"name":"(to_nchwc_)?conv2d_nchwc[a-z_0-9]*","target"' >"$work/mixed.json"
choice() { "$tunectl" bench "$model" --log "$1" --tuned-only --repeats 1 2>&1; }
check "no direct records: Winograd for all three" grep -q "Winograd for 3 of 3 " <<<"$(choice "$work/no-direct.json")"
check "no Winograd records: Winograd for none" grep -q "Winograd for 0 of 3 " <<<"$(choice "$work/no-winograd.json")"
mixed=$(choice "$work/mixed.json")
check "Winograd for the two convolutions that have records" grep -q "Winograd for 2 of 3 " <<<"$mixed"
check "the mixed graph's first convolution has no record" grep -q "nchwc+winograd not covered" <<<"$mixed"
# A log of F(2x2) tasks alone (--layout winograd-f2): auto runs every 3x3
# convolution by F(2x2), the only Winograd whose tasks it has records of.
expect 0 "measurements" -- "$tunectl" tune "$model" --layout winograd-f2 --trials 9 --measures-per-round 1 --jobs 2 \
  --log "$work/f2.log.json" --kernels "$work/f2.kernels"
f2=$(choice "$work/f2.log.json")
check "F(2x2) records alone: all three by F(2x2)" grep -q "Winograd for 3 of 3 3x3 stride-1 convolutions (3 by F(2x2);" <<<"$f2"
check "F(2x2) records alone: the winograd-f2 graph" grep -q "^layout winograd-f2 (auto;" <<<"$f2"

# A named CPU target: every record and the manifest carry it, and its
# kernels hold no AVX-512 instruction, while this machine's own (AVX-512 on
# the reference machine) do: the disassembly check can fail.
v3="llvm -mcpu=x86-64-v3"
expect 0 "for $v3" -- "$tunectl" tune "$model" --target "$v3" --trials 8 --jobs 2 --runoff 0 --log "$work/v3.log.json" \
  --kernels "$work/v3.kernels"
check "all 8 records carry the target" test "$(grep -cF "\"target\":\"$v3\"" "$work/v3.log.json")" -eq 8
check "the manifest names the target" grep -qF "\"target\": \"$v3\"" "$work/v3.kernels/manifest.json"
no_avx512() { objdump -d --no-show-raw-insn "$1" >"$work/asm.txt" && grep -q ymm "$work/asm.txt" && ! grep -qE '%zmm|\{%k[1-7]\}' "$work/asm.txt"; }
check "the $v3 kernels use AVX2 and no AVX-512" no_avx512 "$work/v3.kernels/libtunectl_kernels.so"
if grep -q avx512f /proc/cpuinfo; then
  check "this machine's kernels do use AVX-512" grep -q '%zmm' <(objdump -d "$work/small_cnn.kernels/libtunectl_kernels.so")
fi
# The log of another target: replay says so and names both; bench applies none of it.
host=$("$tunectl" replay "$log" --kernels "$work/r3" | sed -n 's/^target: //p')
expect 2 "no records for target '$host': 8 records of '$v3' are for another target than '$host'" -- \
  "$tunectl" replay "$work/v3.log.json" --target llvm --kernels "$work/r4"
expect 0 "target: $v3" -- "$tunectl" replay "$work/v3.log.json" --kernels "$work/r5"
expect 0 "the log covers 0 of 7 tasks" -- "$tunectl" bench "$model" --layout nchw --log "$work/v3.log.json" --repeats 1
expect 0 "8 records of '$v3' are for another target than '$host' and not used" -- \
  "$tunectl" bench "$model" --log "$work/v3.log.json" --repeats 1
expect 2 "LLVM knows no CPU named 'zen9'" -- "$tunectl" tune "$model" --target "llvm -mcpu=zen9"

# SIGINT mid-run, once the first record is logged (a fixed delay was too
# short on a loaded machine): the kernels folder is still written, the exit
# status is 130, the records stay.
"$tunectl" tune "$model" --target llvm --trials 1000 --jobs 2 --log "$work/int.log.json" \
  --kernels "$work/k3" >"$work/int.out" 2>&1 &
tune_pid=$!
for _ in $(seq 1200); do [ -s "$work/int.log.json" ] && break; sleep 0.1; done
kill -INT "$tune_pid"
wait "$tune_pid"
status=$?
check "an interrupted tune exits 130 (got $status)" test "$status" -eq 130
check "it says it was interrupted" grep -qF "interrupted" "$work/int.out"
check "the interrupted run kept its records" test -s "$work/int.log.json"
check "the interrupted run wrote its kernels folder" test -f "$work/k3/manifest.json"

expect 1 "--bogus" -- "$tunectl" tune "$model" --target llvm --bogus
expect 1 "policy" -- "$tunectl" tune "$model" --target llvm --policy fastest
expect 1 "trials" -- "$tunectl" tune "$model" --target llvm --trials many
# Without a CUDA driver, tune constructs every task's program from the
# analytic model (records marked estimated, a kernels folder whose every
# kernel NVRTC compiled and the emulator checked against the reference); what
# runs the model says it needs a GPU (exit 2). On a machine with one these
# lines do not apply.
if ! ldconfig -p | grep -q 'libcuda\.so\.1'; then
  expect 0 "no program was timed" -- "$tunectl" tune "$model" --target cuda --log "$work/cuda.log.json" \
    --kernels "$work/cuda-kernels"
  tasks=$("$tunectl" tasks "$model" --target cuda | grep -c '^ *[0-9]')
  check "one estimated record per task" test "$(grep -c '"estimated":true' "$work/cuda.log.json")" -eq "$tasks"
  check "one cubin per task" test "$(ls "$work/cuda-kernels"/*.cubin | wc -l)" -eq "$tasks"
  expect 0 "every task constructed" -- "$tunectl" tune "$model" --target cuda --log "$work/cuda.log.json" \
    --kernels "$work/cuda-kernels"
  check "a second run keeps the records" test "$(wc -l < "$work/cuda.log.json")" -eq "$tasks"
  expect 0 "(estimated)" -- "$tunectl" replay "$work/cuda.log.json" --kernels "$work/cuda-replayed"
  for cmd in run bench; do
    extra=""; [ $cmd = run ] && extra="--output-dir $work/cuda-out"
    expect 2 "no CUDA driver or device was found" -- "$tunectl" $cmd "$model" --target cuda $extra
  done
fi
# The whole model's CUDA kernels in the GPU emulator, with the default GPU
# schedules and with the committed CUDA log's, print the CPU's outputs (6
# significant digits of the first values).
input=$repo/models/small_cnn_input_0.pb
cpu_out=$("$tunectl" run "$model" --input "input=$input" --output-dir "$work/cpu-out" | grep '^output')
emulated_default=$("$tunectl" run "$model" --target cuda --emulate --input "input=$input" \
  --output-dir "$work/emulated-default" | grep '^output')
emulated_tuned=$("$tunectl" run "$model" --target cuda --emulate --input "input=$input" \
  --log "$repo/tuning_logs/small_cnn.cuda.json" --output-dir "$work/emulated-tuned" | grep '^output')
check "run --target cuda --emulate (default GPU schedules) prints the CPU's outputs" \
  test -n "$cpu_out" -a "$emulated_default" = "$cpu_out"
check "run --target cuda --emulate (the CUDA log's kernels) prints the CPU's outputs" \
  test "$emulated_tuned" = "$cpu_out"
# Tiny BERT and GPT-2 constructed for the GPU (matmuls stored through a
# reshape and transpose; GPT-2's Q/K/V projection split three ways, which
# gets a kernel of its own) run in the emulator and match ONNX Runtime's
# outputs.
for m in bert_tiny gpt2_tiny; do
  mkdir -p "$work/$m-expected"
  cp "$repo/models/transformers/${m}_output_0.pb" "$work/$m-expected/output_0.pb"
  expect 0 "every task constructed" -- "$tunectl" tune "$repo/models/transformers/$m.onnx" --target cuda \
    --search construct --log "$work/$m.cuda.json"
  expect 0 "outputs match the expected ones" -- "$tunectl" run "$repo/models/transformers/$m.onnx" --target cuda \
    --emulate --log "$work/$m.cuda.json" --input "$repo/models/transformers/${m}_input_0.pb" \
    --expected "$work/$m-expected" --output-dir "$work/$m-out"
done
# float16 models on the GPU (stored as float16, computed in float32): ONNX's
# node tests in the GPU emulator match their expected outputs.
for case in test_max_float16 test_cast_FLOAT_to_FLOAT16 test_cast_DOUBLE_to_FLOAT16 test_cast_FLOAT16_to_DOUBLE; do
  data=$repo/../shared/onnx/node/$case/test_data_set_0
  inputs=()
  for f in "$data"/input_*.pb; do inputs+=(--input "$f"); done
  expect 0 "outputs match the expected ones" -- "$tunectl" run "$data/../model.onnx" --target cuda --emulate \
    "${inputs[@]}" --expected "$data" --output-dir "$work/$case"
done
expect 0 "every task constructed" -- "$tunectl" tune "$model" --target llvm --search construct \
  --log "$work/construct-llvm.log.json" --kernels "$work/construct-llvm"
check "constructed CPU records are marked estimated" grep -q '"estimated":true' "$work/construct-llvm.log.json"
check "the constructed CPU kernels are linked" test -f "$work/construct-llvm/libtunectl_kernels.so"
expect 2 "unknown GPU arch 'sm_20'" -- "$tunectl" tune "$model" --target "cuda -arch=sm_20"
expect 2 "cuda takes -arch=sm_NN" -- "$tunectl" tune "$model" --target "cuda -mcpu=znver4"
expect 2 "unknown target" -- "$tunectl" tune "$model" --target opencl

finish "tune cli"
