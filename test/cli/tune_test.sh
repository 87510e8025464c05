#!/usr/bin/env bash
# `tunectl tune` as a user meets it: a short tune of the shipped model writes
# a log and a kernels folder, a second run resumes from the log and adds new
# records, an interrupt still writes kernels and exits 130, and bad flags or an unsupported target fail with the documented
# exit codes (1 bad command line, 2 user error). Usage: tune_test.sh TUNECTL REPO_DIR
set -u
tunectl=$(realpath "$1")
repo=$2
model=$repo/models/small_cnn.onnx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $what"
    failures=$((failures + 1))
  fi
}

# expect CODE PATTERN -- COMMAND...: runs it in $work, checks the exit code
# and that stdout+stderr contain PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out
  out=$(cd "$work" && "$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (want $code), output:"
    echo "$out" | tail -15
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

expect 0 "wrote" -- "$tunectl" tune "$model" --target llvm --trials 24 --jobs 2
log=$work/small_cnn.log.json
check "the default log exists" test -f "$log"
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
check "24 records in the log (got $lines)" test "$lines" -eq 24
check "records are JSON lines of the format" grep -q '"v":1' "$log"
check "the kernels folder has a manifest" test -f "$work/small_cnn.kernels/manifest.json"
check "the kernels folder has the shared library" test -f "$work/small_cnn.kernels/libtunectl_kernels.so"

expect 0 "24 resumed" -- "$tunectl" tune "$model" --target llvm --trials 8 --jobs 2 --log "$log" \
  --kernels "$work/k2" --no-cost-model --policy round-robin
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
check "the resumed run added 8 records (got $lines)" test "$lines" -eq 32
check "the second kernels folder has a manifest" test -f "$work/k2/manifest.json"

# SIGINT mid-run: the kernels folder is still written, the exit status is 130.
expect 130 "interrupted" -- timeout --preserve-status -s INT 8 "$tunectl" tune "$model" --target llvm \
  --trials 1000 --jobs 2 --log "$work/int.log.json" --kernels "$work/k3"
check "the interrupted run kept its records" test -s "$work/int.log.json"

expect 1 "--bogus" -- "$tunectl" tune "$model" --target llvm --bogus
expect 1 "target" -- "$tunectl" tune "$model"
expect 1 "policy" -- "$tunectl" tune "$model" --target llvm --policy fastest
expect 1 "trials" -- "$tunectl" tune "$model" --target llvm --trials many
expect 2 "not supported yet" -- "$tunectl" tune "$model" --target cuda
expect 2 "unknown target" -- "$tunectl" tune "$model" --target opencl

echo "tune cli: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
