#!/usr/bin/env bash
# `tunectl replay` as a user meets it: the checked-in fixture log
# (test/kernels/data/replay.log.json, kept in step with this build by
# test_kernels) replayed twice into two folders must give byte-identical
# files; a task with only failed records is reported, not fatal; a missing
# log, a corrupt line, an unknown task and a log without a valid record are
# exit 2 with a clear message. A CUDA fixture log
# (test/kernels/data/replay_cuda.log.json) replays without a GPU, twice
# byte-identical. Usage: replay_test.sh TUNECTL REPO_DIR
set -u
tunectl=$1
repo=$2
log=$repo/test/kernels/data/replay.log.json
source "$(dirname "$0")/cli_lib.sh"

[ -s "$log" ] || { echo "FAIL: fixture log missing at $log"; exit 1; }

expect 0 "wrote 2 kernels to $work/a/" -- "$tunectl" replay "$log" --kernels "$work/a"
# The second without the reference check (a log checked before): the same files.
expect 0 "no valid record in the log (1 measured, all failed)" -- "$tunectl" replay "$log" --kernels "$work/b" --no-check
expect 0 "matmul_64" -- "$tunectl" replay "$log" --kernels "$work/one" --task matmul_64

# Byte-identical folders: same file names, same bytes.
(cd "$work/a" && ls) >"$work/a.list"
(cd "$work/b" && ls) >"$work/b.list"
check "both folders list the same 4 files" cmp -s "$work/a.list" "$work/b.list"
check "4 files in a kernels folder" test "$(wc -l <"$work/a.list")" -eq 4
for f in $(cat "$work/a.list"); do
  check "$f is byte-identical in two replays" cmp -s "$work/a/$f" "$work/b/$f"
done
check "--task wrote only its kernel" test "$(ls "$work/one" | grep -c '\.o$')" -eq 1

# A CUDA log replays without a GPU (NVRTC builds, the GPU emulator checks):
# per kernel .cu, .ptx and .cubin, twice byte-identical.
cuda_log=$repo/test/kernels/data/replay_cuda.log.json
expect 0 "wrote 3 kernels to $work/ca/" -- "$tunectl" replay "$cuda_log" --kernels "$work/ca"
expect 0 "wrote 3 kernels to $work/cb/" -- "$tunectl" replay "$cuda_log" --kernels "$work/cb" --no-check
check "a CUDA folder holds 3 x (.cu .ptx .cubin) and the manifest" test "$(ls "$work/ca" | wc -l)" -eq 10
check "the manifest names the arch" grep -q '"target": "cuda -arch=sm_90"' "$work/ca/manifest.json"
for f in $(cd "$work/ca" && ls); do
  check "$f is byte-identical in two CUDA replays" cmp -s "$work/ca/$f" "$work/cb/$f"
done
expect 2 "no records for target" -- "$tunectl" replay "$cuda_log" --kernels "$work/cc" --target llvm

# Errors.
expect 2 "cannot open" -- "$tunectl" replay "$work/missing.log" --kernels "$work/c"
{ head -n 1 "$log"; echo '{"v": 1, "task": {'; tail -n +2 "$log"; } >"$work/corrupt.log"
expect 2 "corrupt.log" -- "$tunectl" replay "$work/corrupt.log" --kernels "$work/c"
expect 2 "no task named 'nope'" -- "$tunectl" replay "$log" --kernels "$work/c" --task nope
expect 2 "no valid record" -- "$tunectl" replay "$log" --kernels "$work/c" --task relu_1x8x9x9
: >"$work/empty.log"
expect 2 "no records" -- "$tunectl" replay "$work/empty.log" --kernels "$work/c"
expect 1 "log is required" -- "$tunectl" replay
check "a failed replay creates no kernels folder" test ! -e "$work/c"

finish "replay cli"
