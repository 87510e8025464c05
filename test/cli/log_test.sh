#!/usr/bin/env bash
# The log tools and the reuse of logs as a user meets them: `log show`,
# `log best`, `log merge` and `log rank` on the committed logs, a truncated last line, a
# record of an older and of a newer format version, records of another
# target, and `tune --records` starting a run from another log's best
# programs. Usage: log_test.sh TUNECTL REPO_DIR
set -u
tunectl=$1
repo=$2
source "$(dirname "$0")/cli_lib.sh"

logs=$repo/tuning_logs
cnn_log=$logs/small_cnn.llvm.json
gpu_log=$logs/small_cnn.cuda.json
model=$repo/models/small_cnn.onnx
cpu="llvm -mcpu=znver4"
cnn_records=$(wc -l <"$cnn_log")
gpu_records=$(wc -l <"$gpu_log")

# show: a table per target.
expect 0 "target 'llvm -mcpu=znver4': 16 tasks" -- "$tunectl" log show "$cnn_log"
expect 0 "total: $cnn_records records, 0 errors" -- "$tunectl" log show "$cnn_log"
expect 0 "target 'cuda -arch=sm_90'" -- "$tunectl" log show "$cnn_log" "$gpu_log"
expect 0 "conv2d_relu_0" -- "$tunectl" log show "$logs"

# best: one record per task and target, enough to run the model tuned.
expect 0 "wrote the best records of 16 tasks (of $cnn_records records) to $work/best.json" -- \
  "$tunectl" log best "$cnn_log" -o "$work/best.json"
check "log best wrote 16 lines" test "$(wc -l <"$work/best.json")" -eq 16
# (Running a log's kernels needs a CPU that runs its target: the committed
# small_cnn log this CPU runs, host_cnn_log.)
cpu_runs_here=false
host_cnn_log "$tunectl" && cpu_runs_here=true
if $cpu_runs_here; then
  "$tunectl" log best "$host_log" -o "$work/host-best.json" >/dev/null
  expect 0 "tuned schedules from $work/host-best.json for 7 of 7 tasks" -- "$tunectl" run "$model" \
    --target "$host_cpu" --log "$work/host-best.json" --seed 1 --output-dir "$work/out-best"
else
  skip 1 "this CPU runs the code of no committed small_cnn log"
fi
expect 0 "total: 16 records, 0 errors" -- "$tunectl" log show "$work/best.json"

# merge: every record once; a log merged with itself adds nothing.
expect 0 "wrote $((cnn_records + gpu_records)) records to $work/merged.json ($((2 * cnn_records + gpu_records)) read from 3 files, $cnn_records repeated ones left out)" -- \
  "$tunectl" log merge "$cnn_log" "$gpu_log" "$cnn_log" -o "$work/merged.json"
expect 0 "target 'cuda -arch=sm_90': 7 tasks" -- "$tunectl" log show "$work/merged.json"
cp "$work/merged.json" "$work/merged-both.json"
expect 0 "best records of 23 tasks" -- "$tunectl" log best "$work/merged.json" -o "$work/merged.json"
check "log best may replace the log it read" test "$(wc -l <"$work/merged.json")" -eq 23

# rank: the analytic model's ranking of each task's measured programs; a
# log of best records has one program a task, which ranks nothing.
expect 0 "target 'llvm -mcpu=znver4': the analytic model's ranking of" -- "$tunectl" log rank "$cnn_log"
expect 0 "mean Spearman" -- "$tunectl" log rank "$cnn_log" --min-programs 5
expect 2 "log rank: no task of $work/best.json has 20 or more measured programs" -- "$tunectl" log rank "$work/best.json"
expect 1 "--min-programs" -- "$tunectl" log rank "$cnn_log" --min-programs 1
head -n 40 "$cnn_log" >"$work/rank-head.json"
expect 0 "times taken again here: 2 calls each" -- "$tunectl" log rank "$work/rank-head.json" --min-programs 5 \
  --retime --calls 2 -o "$work/rank-now.json"
expect 0 "times as logged" -- "$tunectl" log rank "$work/rank-now.json" --min-programs 5
expect 1 "--retime" -- "$tunectl" log rank "$cnn_log" -o "$work/rank-now.json"
expect 2 "is one of the logs it reads" -- "$tunectl" log rank "$work/rank-head.json" --min-programs 5 --retime \
  -o "$work/rank-head.json"

# A truncated last line (a killed run) is skipped with a warning; the rest is kept.
{ cat "$cnn_log"; head -c 300 "$cnn_log"; } >"$work/truncated.json"
expect 0 "skipped truncated last line $((cnn_records + 1)) of $work/truncated.json" -- \
  "$tunectl" log merge "$work/truncated.json" -o "$work/repaired.json"
check "the truncated log's records are all kept" test "$(wc -l <"$work/repaired.json")" -eq "$cnn_records"

# A record of format version 1 is read and written upgraded.
head -1 "$cnn_log" | sed 's/"v":2}$/"v":1}/' >"$work/v1.json"
expect 0 "1 record(s) of an older format version read (written as version 2)" -- \
  "$tunectl" log merge "$work/v1.json" -o "$work/v1-upgraded.json"
check "the upgraded record is written as version 2" grep -q '"v":2}$' "$work/v1-upgraded.json"

# A record of a newer version is refused naming file and line; nothing is written.
{ head -3 "$cnn_log"; head -1 "$cnn_log" | sed 's/"v":2}$/"v":3}/'; } >"$work/v3.json"
expect 2 "$work/v3.json:4: log format version 3 is newer than this tunectl reads (2); upgrade tunectl" -- \
  "$tunectl" log best "$work/v3.json" -o "$work/v3-best.json"
check "nothing written after a refused log" test ! -e "$work/v3-best.json"
expect 2 "no tuning log or folder" -- "$tunectl" log show "$work/missing.json"
expect 1 "logs is required" -- "$tunectl" log best -o "$work/x.json"
expect 1 "--output is required" -- "$tunectl" log merge "$cnn_log"

# Records of another target are named and not applied.
expect 0 "$gpu_records records of 'cuda -arch=sm_90' are for another target than 'llvm -mcpu=" -- \
  "$tunectl" run "$model" --log "$gpu_log" --seed 1 --output-dir "$work/out-gpu"

# tune --records: the tasks another log tuned start from its best programs.
# Every committed log holds the 13 tasks of the model's two layouts (and
# tasks the model no longer makes).
if $cpu_runs_here; then
  expect 0 "the best programs of 13 tasks start this run" -- "$tunectl" tune "$model" --target "$host_cpu" \
    --records "$host_log" --trials 0 --runoff 0 --log "$work/transfer.json" --kernels "$work/transfer.kernels"
  check "the transferred records are in the new log" test "$(wc -l <"$work/transfer.json")" -eq 13
  expect 0 "wrote 7 of 7 kernels" -- "$tunectl" tune "$model" --target "$host_cpu" --records "$host_log" --trials 0 \
    --runoff 0 --log "$work/transfer.json" --kernels "$work/transfer.kernels"
  check "a second transfer adds nothing" test "$(wc -l <"$work/transfer.json")" -eq 13
  # tune --retime: each NCHW task measures the other log's best program
  # again, in its one round of one; no record is copied.
  expect 0 "7 programs of 7 tasks (up to 1 each) are measured again first" -- "$tunectl" tune "$model" \
    --target "$host_cpu" --layout nchw --retime "$host_log" --retime-top 1 --trials 7 --measures-per-round 1 \
    --log "$work/retime.json" --kernels "$work/retime.kernels"
  "$tunectl" log best "$host_log" -o "$work/host-best.json" >/dev/null
  steps() { sed 's/.*"steps":\(.*\),"task":.*/\1/' "$1" | sort -u; }
  check "the retimed programs are the other log's best" \
    test "$(comm -12 <(steps "$work/retime.json") <(steps "$work/host-best.json") | wc -l)" -eq 7
  check "no record of the other log is copied" test -z "$(comm -12 <(sort "$work/retime.json") <(sort "$host_log"))"
  expect 2 "--retime measures programs, and this run constructs without timing any" -- "$tunectl" tune "$model" \
    --target "$host_cpu" --search construct --retime "$host_log" --log "$work/retime-construct.json" \
    --kernels "$work/retime-construct.kernels"
else
  skip 8 "this CPU runs the code of no committed small_cnn log"
fi

# report: one self-contained page (the browser test is test_report's).
expect 0 "wrote $work/report.html: 500 records of 7 tasks for $cpu" -- "$tunectl" report "$cnn_log" --model "$model" \
  --layout nchw --target "$cpu" -o "$work/report.html"
check "the report fetches and runs nothing" bash -c '! grep -Eq "<script|src=\"http|href=\"http" "$0"' "$work/report.html"
expect 0 "wrote $work/all.html: $cnn_records records of 16 tasks" -- "$tunectl" report "$cnn_log" -o "$work/all.html"
expect 2 "records of 2 targets" -- "$tunectl" report "$work/merged-both.json" -o "$work/x.html"
expect 2 "no records for target 'llvm -mcpu=skylake'" -- "$tunectl" report "$cnn_log" --target "llvm -mcpu=skylake" \
  -o "$work/x.html"

finish "log cli"
