#!/usr/bin/env bash
# Failure kinds end to end, each with its exit code and a message naming the
# failing call and path (README "Exit codes"): a planted fork failure, a
# read-only log folder and a full disk are operating-system failures (71); a
# record the log does not have, or a log that is a device, is a user error (2). And the reproduction the
# tune summary prints for an internal error, `compile-op --log --line`, works on
# a real record. Usage: failures_test.sh TUNECTL REPO_DIR FAIL_FORK_SO
set -u
tunectl=$(realpath "$1")
repo=$2
plant=$3
model=$repo/models/small_cnn.onnx
source "$(dirname "$0")/cli_lib.sh"
run_dir=$work

# fork fails: the import cannot check the model in its child (every fork
# fails), or the first measurement cannot start a worker (the import's one
# fork succeeds).
expect 71 "cannot check the ONNX model: fork(): Resource temporarily unavailable" -- \
  env LD_PRELOAD="$plant" PLANT_FORK_FAILURE=0 "$tunectl" tune "$model" --trials 4 --log "$work/fork.json" --kernels "$work/fork.kernels"
expect 71 "measure: cannot start a worker: fork(): Resource temporarily unavailable" -- \
  env LD_PRELOAD="$plant" PLANT_FORK_FAILURE=1 "$tunectl" tune "$model" --trials 4 --log "$work/fork.json" --kernels "$work/fork.kernels"

# A read-only log folder: a folder without write permission, or for root
# (who may write there anyway) a planted read-only file system.
ro=$work/readonly
mkdir -p "$ro"
if [ "$(id -u)" -eq 0 ]; then
  in_readonly() { env LD_PRELOAD="$plant" PLANT_READONLY_FOLDER="$ro" "$@"; }
else
  chmod 555 "$ro"
  in_readonly() { "$@"; }
fi
expect 71 "cannot open the tuning log for appending: open($ro/log.json):" -- \
  in_readonly "$tunectl" tune "$model" --trials 4 --log "$ro/log.json" --kernels "$work/ro.kernels"
check "nothing was written to the read-only folder" test ! -e "$ro/log.json"

# A full disk, as the file-size limit plants it (for root too): the log's
# writes fail once it reaches 8 KiB (EFBIG, with SIGXFSZ ignored).
expect 71 "cannot write the tuning log: write($work/full/log.json): File too large" -- \
  bash -c 'trap "" XFSZ; ulimit -f 8; exec "$@"' bash \
  "$tunectl" tune "$model" --trials 48 --log "$work/full/log.json" --kernels "$work/full.kernels"
expect 2 "tuning log '/dev/zero' is not a regular file" -- "$tunectl" replay /dev/zero

# The kernels folder cannot be written (a read-only folder; a full disk: no
# file may grow past 4 KiB): the command names the path, the log keeps every
# record, and the folder is either the earlier complete one or absent.
expect 71 "cannot create the folder: mkdir($ro/.k.partial-" -- \
  in_readonly "$tunectl" tune "$model" --trials 4 --log "$work/rok.json" --kernels "$ro/k"
check "the log of that run kept its records" test "$(grep -c . "$work/rok.json")" -ge 4
"$tunectl" replay "$work/rok.json" --kernels "$work/full.kernels" >/dev/null
cp "$work/full.kernels/manifest.json" "$work/manifest.before"
expect 71 "$work/.full.kernels.partial-" -- \
  bash -c "trap '' XFSZ; ulimit -f 4; exec \"\$@\"" bash \
  "$tunectl" replay "$work/rok.json" --kernels "$work/full.kernels"
check "a failed write leaves the earlier kernels folder as it was" \
  cmp "$work/full.kernels/manifest.json" "$work/manifest.before"
check "and no partial folder" test -z "$(ls -A "$work" | grep partial)"
mkdir "$work/mine" && touch "$work/mine/notes.txt"
expect 2 "'$work/mine' is a folder with files of its own (no manifest.json); refusing to replace it" -- \
  "$tunectl" replay "$work/rok.json" --kernels "$work/mine"
check "a folder of the user's is left alone" test -f "$work/mine/notes.txt"

# compile-op --log --line rebuilds a record's program: what the summary prints
# to reproduce an internal error.
log=$repo/tuning_logs/small_cnn.llvm.json
line=$(grep -n '"error":"none"' "$log" | head -n1 | cut -d: -f1)
expect 0 "check: output matches the reference" -- "$tunectl" compile-op --log "$log" --line "$line" --check \
  --emit state
expect 2 "has no record at line 100000" -- "$tunectl" compile-op --log "$log" --line 100000
expect 2 "--log needs --line" -- "$tunectl" compile-op --log "$log"
expect 2 "exclude each other" -- "$tunectl" compile-op --log "$log" --line 1 --op matmul

finish "failures"
