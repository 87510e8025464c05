#!/usr/bin/env bash
# `tunectl tune` as a user meets it: a short tune of the shipped model writes
# a log and a kernels folder, a second run resumes from the log and adds new
# records, an interrupt still writes kernels and exits 130, and bad flags or
# an unsupported target fail with the documented exit codes (1 bad command line, 2 user
# error). Usage: tune_test.sh TUNECTL REPO_DIR
set -u
tunectl=$(realpath "$1")
repo=$2
model=$repo/models/small_cnn.onnx
source "$(dirname "$0")/cli_lib.sh"
run_dir=$work  # default log and kernels paths land here

# The default target is llvm.
expect 0 "wrote" -- "$tunectl" tune "$model" --trials 24 --jobs 2
log=$work/small_cnn.log.json
check "the default log exists" test -f "$log"
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
check "24 records in the log (got $lines)" test "$lines" -eq 24
check "records are JSON lines of the format" grep -q '"v":2' "$log"
check "the kernels folder has a manifest" test -f "$work/small_cnn.kernels/manifest.json"
check "the kernels folder has the shared library" test -f "$work/small_cnn.kernels/libtunectl_kernels.so"

expect 0 "24 resumed" -- "$tunectl" tune "$model" --target llvm --trials 8 --jobs 2 --log "$log" \
  --kernels "$work/k2" --no-cost-model --policy round-robin
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
check "the resumed run added 8 records (got $lines)" test "$lines" -eq 32
check "the second kernels folder has a manifest" test -f "$work/k2/manifest.json"

# The issue's end-to-end path: tune -> replay (twice, byte-identical, and
# equal to what tune wrote) -> bench with the log.
expect 0 "wrote 7 kernels" -- "$tunectl" replay "$log" --kernels "$work/r1"
expect 0 "wrote 7 kernels" -- "$tunectl" replay "$log" --kernels "$work/r2"
check "two replays give byte-identical kernels folders" diff -r "$work/r1" "$work/r2"
check "replay rebuilds exactly the kernels tune wrote" diff -r "$work/r1" "$work/k2"
expect 0 "speedup" -- "$tunectl" bench "$model" --log "$log" --repeats 3

# SIGINT mid-run: the kernels folder is still written, the exit status is 130.
expect 130 "interrupted" -- timeout --preserve-status -s INT 8 "$tunectl" tune "$model" --target llvm \
  --trials 1000 --jobs 2 --log "$work/int.log.json" --kernels "$work/k3"
check "the interrupted run kept its records" test -s "$work/int.log.json"

expect 1 "--bogus" -- "$tunectl" tune "$model" --target llvm --bogus
expect 1 "policy" -- "$tunectl" tune "$model" --target llvm --policy fastest
expect 1 "trials" -- "$tunectl" tune "$model" --target llvm --trials many
expect 2 "not supported yet" -- "$tunectl" tune "$model" --target cuda
expect 2 "unknown target" -- "$tunectl" tune "$model" --target opencl

finish "tune cli"
