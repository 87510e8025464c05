#!/usr/bin/env bash
# `tunectl replay` as a user meets it: the checked-in fixture log
# (test/kernels/data/replay.log.json, kept in step with this build by
# test_kernels) replayed twice into two folders must give byte-identical
# files; a task with only failed records is reported, not fatal; a missing
# log, a corrupt line, an unknown task and a log without a valid record are
# exit 2 with a clear message. Usage: replay_test.sh TUNECTL REPO_DIR
set -u
tunectl=$1
repo=$2
log=$repo/test/kernels/data/replay.log.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect CODE PATTERN -- COMMAND...: runs it, checks the exit code and that
# stdout+stderr contain PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out
  out=$("$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    fail "$* -> exit $rc (want $code, output with '$pattern'), output:"
    echo "$out" | head -8
  else
    passes=$((passes + 1))
  fi
}

[ -s "$log" ] || { echo "FAIL: fixture log missing at $log"; exit 1; }

expect 0 "wrote 2 kernels to $work/a/" -- "$tunectl" replay "$log" --kernels "$work/a"
expect 0 "no valid record in the log (1 measured, all failed)" -- "$tunectl" replay "$log" --kernels "$work/b"
expect 0 "matmul_64" -- "$tunectl" replay "$log" --kernels "$work/one" --task matmul_64

# Byte-identical folders: same file names, same bytes.
(cd "$work/a" && ls) >"$work/a.list"
(cd "$work/b" && ls) >"$work/b.list"
if cmp -s "$work/a.list" "$work/b.list" && [ "$(wc -l <"$work/a.list")" -eq 4 ]; then
  passes=$((passes + 1))
else
  fail "kernel folders list different files: $(cat "$work/a.list") vs $(cat "$work/b.list")"
fi
for f in $(cat "$work/a.list"); do
  if cmp -s "$work/a/$f" "$work/b/$f"; then passes=$((passes + 1)); else fail "$f differs between two replays"; fi
done
[ "$(ls "$work/one" | grep -c '\.o$')" -eq 1 ] && passes=$((passes + 1)) || fail "--task wrote other kernels"

# Errors.
expect 2 "cannot open" -- "$tunectl" replay "$work/missing.log" --kernels "$work/c"
{ head -n 1 "$log"; echo '{"v": 1, "task": {'; tail -n +2 "$log"; } >"$work/corrupt.log"
expect 2 "corrupt.log" -- "$tunectl" replay "$work/corrupt.log" --kernels "$work/c"
expect 2 "no task named 'nope'" -- "$tunectl" replay "$log" --kernels "$work/c" --task nope
expect 2 "no valid record" -- "$tunectl" replay "$log" --kernels "$work/c" --task relu_1x8x9x9
: >"$work/empty.log"
expect 2 "no records" -- "$tunectl" replay "$work/empty.log" --kernels "$work/c"
expect 1 "log is required" -- "$tunectl" replay
[ ! -e "$work/c" ] && passes=$((passes + 1)) || fail "a failed replay created the kernels folder"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
