#!/usr/bin/env bash
# `tunectl bench` as a user meets it: the suite with no tuning logs (rows
# that say so, exit 0), the suite with a real log of one of its workloads
# (the tuned kernel is rebuilt, checked against oneDNN and timed), a model
# with a log written by `tunectl tune` (default and tuned side by side, and
# against a second log with --against), the
# core matmul rows, and exit codes for bad input (1 bad command line, 2 user
# error). Usage: bench_test.sh TUNECTL REPO_DIR
set -u
tunectl=$1
repo=$2
source "$(dirname "$0")/cli_lib.sh"

model=$repo/models/small_cnn.onnx
suite=$repo/models/bench
mkdir -p "$work/empty_logs"

# The suite without logs: every workload reported (8, and the 6
# convolutions channel-blocked), none timed, no failure.
expect_count 14 "no tuning log" -- "$tunectl" bench --suite "$suite" --logs "$work/empty_logs" --repeats 1

# A few trials of the suite's 1x1 convolution in each layout, then the suite
# with those logs: its two rows are tuned (rebuilt from the record and
# checked against oneDNN or, blocked, the reference), the others have no log.
expect 0 "trials" -- "$tunectl" tune "$suite/conv1x1_resnet.onnx" --layout nchw --trials 4 --jobs 1 \
  --log "$work/suite_logs/conv1x1.json" --kernels "$work/conv1x1.kernels"
expect 0 "trials" -- "$tunectl" tune "$suite/conv1x1_resnet.onnx" --layout nchwc --trials 12 --jobs 1 \
  --log "$work/suite_logs/conv1x1_nchwc.json" --kernels "$work/conv1x1_nchwc.kernels"
expect_count 1 "conv1x1_resnet                  tuned" -- "$tunectl" bench --suite "$suite" --logs "$work/suite_logs" \
  --repeats 1
expect_count 12 "no tuning log" -- "$tunectl" bench --suite "$suite" --logs "$work/suite_logs" --repeats 1
expect_count 13 "no tuning log" -- "$tunectl" bench --suite "$suite" --logs "$work/suite_logs/conv1x1.json" --repeats 1
# Logs of several CPU targets (the committed folder holds znver4's and the
# portable x86-64-v3 and x86-64-v4 logs): of those this CPU runs, the one
# covering most workloads; of two that cover as many, the one whose
# instruction set includes the other's, else the user's choice.
with_target() { sed "s/\"target\":\"llvm[^\"]*\"/\"target\":\"$1\"/g" "$2"; }
mkdir -p "$work/mixed_logs"
cp "$work/suite_logs/conv1x1.json" "$work/mixed_logs/host.json"
if foreign_cpu "$tunectl" "$work/foreign-probe"; then
  cat "$work/suite_logs/"*.json | with_target "$foreign_target" /dev/stdin >"$work/mixed_logs/foreign.json"
  expect_count 13 "no tuning log" -- "$tunectl" bench --suite "$suite" --logs "$work/mixed_logs" --repeats 1
else
  skip 1 "this CPU runs both Sapphire Rapids' and Zen 5's code; no log it cannot run"
fi
with_target "llvm -mcpu=x86-64-v3" "$work/suite_logs/conv1x1.json" >"$work/mixed_logs/v3.json"
host_target=$(sed -n 's/.*"target":"\(llvm[^"]*\)".*/\1/p;q' "$work/suite_logs/conv1x1.json")
expect 0 "1 tuned workloads for $host_target)" -- "$tunectl" bench --suite "$suite" --logs "$work/mixed_logs" \
  --repeats 1
mkdir -p "$work/unordered_logs"
with_target "llvm -mcpu=x86-64 -mattr=+bmi2" "$work/suite_logs/conv1x1.json" >"$work/unordered_logs/bmi2.json"
with_target "llvm -mcpu=x86-64 -mattr=+popcnt" "$work/suite_logs/conv1x1.json" >"$work/unordered_logs/popcnt.json"
expect 2 "; pick one with --target" -- "$tunectl" bench --suite "$suite" --logs "$work/unordered_logs" --repeats 1

# A model with a log from `tunectl tune`: default and tuned runs side by side.
expect 0 "trials" -- "$tunectl" tune "$model" --layout nchw --trials 8 --jobs 1 --log "$work/cnn.json" \
  --kernels "$work/cnn.kernels"
expect 0 "of 7 tasks" -- "$tunectl" bench "$model" --log "$work/cnn.json" --repeats 2 --layout nchw
expect 0 "speedup:" -- "$tunectl" bench "$model" --log "$work/cnn.json" --repeats 2 --profile
expect 0 "activation memory" -- "$tunectl" bench "$model" --repeats 2
# Default and tuned in rounds, compared round by round (6 rounds of 5).
expect 0 "round by round: tuned faster in" -- "$tunectl" bench "$model" --log "$work/cnn.json" --repeats 30 \
  --layout nchw
# Without a log the default kernels are timed alone too (as the tuner times
# them), and --profile sets each against its time in the model.
expect 0 "timed alone now, as the tuner times them" -- "$tunectl" bench "$model" --repeats 2
expect 0 "alone ms  in model" -- "$tunectl" bench "$model" --repeats 2 --profile
# --tuned-only: the tuned run alone, with the time lost between kernels.
# The committed logs cover every task of both layouts; auto runs the faster
# by its records (NCHW on small_cnn's 32x32 images); 8 trials cover few.
# host_cnn_log picks the one this CPU runs: the reference CPU's (znver4,
# which a newer CPU, Zen 5: znver5, also runs; --target picks its records
# there) or a portable one (x86-64-v4, x86-64-v3).
# The default schedules' outputs, written as .npy.
expect 0 "output float32 [1x10]" -- "$tunectl" run "$model" --input "input=$repo/models/small_cnn_input_0.pb" \
  --output-format npy --output-dir "$work/run-default"
if host_cnn_log "$tunectl"; then
  expect 0 "layout nchw (auto" -- "$tunectl" bench "$model" --log "$host_log" --target "$host_cpu" \
    --tuned-only --repeats 2
  expect 0 "the log's best, as measured when it was tuned" -- "$tunectl" bench "$model" --log "$host_log" \
    --target "$host_cpu" --tuned-only --repeats 2
  # run --log: the same log's schedules in `tunectl run`.
  expect 0 "tuned schedules from $host_log for 7 of 7 tasks" -- "$tunectl" run "$model" --target "$host_cpu" \
    --input "input=$repo/models/small_cnn_input_0.pb" --log "$host_log" --output-dir "$work/run-tuned"
  check "run --log wrote output.pb" test -s "$work/run-tuned/output.pb"
  # The tuned outputs equal the default schedules' (run-default).
  expect 0 "outputs match the expected ones in $work/run-default (1 compared" -- "$tunectl" run "$model" \
    --target "$host_cpu" --input "input=$repo/models/small_cnn_input_0.pb" --log "$host_log" \
    --expected "$work/run-default" --output-dir "$work/run-tuned" --repeat 3
  expect 0 "latency over 3 runs: median" -- "$tunectl" run "$model" --seed 5 --log "$host_log" \
    --target "$host_cpu" --output-dir "$work/run-seeded" --repeat 3
else
  skip 6 "this CPU runs the code of no committed small_cnn log (znver4, x86-64-v4 nor x86-64-v3)"
fi
expect 0 "subgraphs have no measured record (0 only an estimate)" -- "$tunectl" bench "$model" --log "$work/cnn.json" \
  --tuned-only --repeats 2 --layout nchw
# A constructed log's records are estimates: no kernel time to set the end
# to end time against.
expect 0 "constructed task 7/7" -- "$tunectl" tune "$model" --layout nchw --search construct \
  --log "$work/constructed.json" --kernels "$work/constructed.kernels"
expect 0 "7 of 7 subgraphs have no measured record (7 only an estimate)" -- "$tunectl" bench "$model" \
  --log "$work/constructed.json" --tuned-only --repeats 2 --layout nchw
# --against: a second log's tuned model in the same rounds (the constructed
# log against the 8 trials'), its outputs compared with --log's, each
# layout choice said for its log.
expect 0 "$work/cnn.json against $work/constructed.json:" -- "$tunectl" bench "$model" --log "$work/cnn.json" \
  --against "$work/constructed.json" --tuned-only --repeats 10 --layout nchw
expect 0 "round by round: --log faster in" -- "$tunectl" bench "$model" --log "$work/cnn.json" \
  --against "$work/constructed.json" --tuned-only --repeats 30 --layout nchw
expect 0 "--against $work/constructed.json:" -- "$tunectl" bench "$model" --log "$work/cnn.json" \
  --against "$work/constructed.json" --repeats 5
# --profile with --against: every subgraph in the model and alone under both.
expect 0 "--against / --log" -- "$tunectl" bench "$model" --log "$work/cnn.json" \
  --against "$work/constructed.json" --tuned-only --repeats 5 --layout nchw --profile
expect 2 "--against needs --log" -- "$tunectl" bench "$model" --against "$work/cnn.json"
expect 2 "missing.json" -- "$tunectl" bench "$model" --log "$work/cnn.json" --against "$work/missing.json"
expect 2 "--tuned-only needs --log" -- "$tunectl" bench "$model" --tuned-only
# A log with no record for the target: nothing tuned to time.
expect 2 "has a record for none of the model's 7 tasks on target 'llvm -mcpu=x86-64-v3'" -- "$tunectl" bench \
  "$model" --log "$work/cnn.json" --target "llvm -mcpu=x86-64-v3" --tuned-only --repeats 1 --layout nchw
# A log that covers some tasks: the rest run default schedules, named.
expect 0 "default schedules (no record for target" -- "$tunectl" run "$model" --seed 5 --log "$work/cnn.json" \
  --layout nchwc --output-dir "$work/run-partial"
expect 2 "differs from the expected one" -- "$tunectl" run "$model" --seed 5 --output-dir "$work/run-seeded" \
  --expected "$work/run-default"
expect 2 "missing.json" -- "$tunectl" run "$model" --input "input=$repo/models/small_cnn_input_0.pb" \
  --log "$work/missing.json" --output-dir "$work/run-tuned"

# The core matmul rows.
expect 0 "tunectl hand schedule" -- "$tunectl" bench --core --size 64 --repeats 1

# Bad command lines exit 1, user errors 2.
expect 1 "--bogus" -- "$tunectl" bench --bogus
expect 1 "--repeats" -- "$tunectl" bench --repeats 0
expect 2 "missing.onnx" -- "$tunectl" bench "$work/missing.onnx"
expect 2 "missing.json" -- "$tunectl" bench "$model" --log "$work/missing.json"
expect 2 "no_such_dir" -- "$tunectl" bench --logs "$work/no_such_dir"
expect 2 "need a MODEL" -- "$tunectl" bench --log "$work/cnn.json"
expect 2 "need a MODEL" -- "$tunectl" bench --against "$work/cnn.json"
expect 2 "do not take a MODEL" -- "$tunectl" bench "$model" --core
expect 2 "multiple of 32" -- "$tunectl" bench --core --size 40

finish "bench cli"
