#!/usr/bin/env bash
# One log, many writers (issue "Hardened"): a second `tune` on a log that a
# running one holds stops with a message naming that process, or with
# --wait-for-log waits for it (and `log best -o` will not replace it
# meanwhile); 50 runs killed with SIGKILL at random moments (CI: a share of
# them, TUNECTL_PROPERTY_SHARE as in test/support/property_cases.h, at least 12)
# leave a log whose every line reads back, and the resumed run then measures
# no program twice; a kernels folder deleted while tune runs is written whole
# again. Every run tunes the NCHW layout alone (7 tasks against --layout
# auto's 17, half the test's time): locking, resuming and writing kernels do
# not depend on the layout. Usage: writers_test.sh TUNECTL REPO_DIR
set -u
tunectl=$(realpath "$1")
repo=$2
model=$repo/models/small_cnn.onnx
source "$(dirname "$0")/cli_lib.sh"

# The program keys (workload key and steps) that appear on more than one
# line of a log: a program measured twice (a runoff's records time measured
# programs again on purpose: left out).
repeated_programs() {
  local line key steps
  while IFS= read -r line; do
    key=$(grep -o '"key":"[0-9a-f]*","name":"[^"]*","target":"[^"]*"' <<<"$line")
    steps=${line#*\"steps\":}
    echo "$key ${steps%%,\"task\":*}"
  done < <(grep -vF '"runoff":true' "$1") | sort | uniq -d
}

# Whether `log show`'s total line names no errors but timeouts: a build or
# run past its limit is the loaded machine's (ctest runs other suites beside
# this one; once a small_cnn build passed 15 s), not a lost or broken record.
only_timeouts() {
  local total kinds
  total=$("$tunectl" log show "$1" | grep '^total:') || return 1
  case $total in *", 0 errors"*) return 0 ;; esac
  kinds=$(sed -n 's/.*errors (\(.*\))$/\1/p' <<<"$total" | tr ',' '\n' | sed 's/^ *//')
  [ -n "$kinds" ] && ! grep -qvE '^(build|run)_timeout [0-9]+$' <<<"$kinds" || { echo "$total"; return 1; }
}

no_repeats() {
  local repeats
  repeats=$(repeated_programs "$1")
  [ -z "$repeats" ] || { echo "measured twice: $repeats" | head -c 600; return 1; }
}

# --- two writers -----------------------------------------------------------
log=$work/two.json
"$tunectl" tune "$model" --layout nchw --trials 16 --log "$log" --kernels "$work/a.kernels" -q >"$work/a.out" 2>&1 &
first=$!
for _ in $(seq 100); do [ -s "$log" ] && break; sleep 0.1; done
expect 2 "tuning log '$log' is being written by process $first" -- \
  "$tunectl" tune "$model" --layout nchw --trials 16 --log "$log" --kernels "$work/b.kernels"
expect 2 "tuning log '$log' is being written by process $first" -- "$tunectl" log best "$log" -o "$log"
expect 0 "waiting for process $first" -- \
  "$tunectl" tune "$model" --layout nchw --trials 20 --log "$log" --kernels "$work/b.kernels" --wait-for-log
wait "$first"
check "the first run ended well" test $? -eq 0
check "the two runs' records hold no errors but timeouts" only_timeouts "$log"
check "no program of the two runs was measured twice" no_repeats "$log"

# --- kill -9 at random moments, then resume ---------------------------------
log=$work/killed.json
kills=$(awk -v s="${TUNECTL_PROPERTY_SHARE:-1}" 'BEGIN { n = int(50 * s + 0.999); print (n < 12 ? 12 : n) }')
RANDOM=7  # the same moments on every run of the test
for i in $(seq "$kills"); do
  before=$(grep -c . "$log" 2>/dev/null)
  "$tunectl" tune "$model" --layout nchw --trials 400 --log "$log" --kernels "$work/k.kernels" -q >/dev/null 2>&1 &
  pid=$!
  # Every other run is killed once it has logged a record (then 0-0.9 s
  # later, in the middle of measuring), the others at any moment of their
  # first 2.4 s (starting up, reading the log, building).
  if [ $((i % 2)) -eq 0 ]; then
    for _ in $(seq 400); do [ "$(grep -c . "$log" 2>/dev/null)" -gt "${before:-0}" ] && break; sleep 0.05; done
    sleep "0.$((RANDOM % 10))"
  else
    sleep "$((RANDOM % 25 / 10)).$((RANDOM % 10))"
  fi
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
lines=$(grep -c . "$log")
check "the runs killed while measuring logged a record each ($lines lines)" test "$lines" -ge $((kills / 2))
expect_count 0 "skipped" -- "$tunectl" log show "$log"
expect 0 "wrote" -- "$tunectl" tune "$model" --layout nchw --trials 8 --log "$log" --kernels "$work/k.kernels"
check "every line of the log reads back" test "$("$tunectl" log merge "$log" -o "$work/all.json" | grep -o '^wrote [0-9]*')" = "wrote $(grep -c . "$log")"
check "no program was measured twice across $((kills + 1)) runs" no_repeats "$log"
check "the resumed run wrote a complete kernels folder" test -s "$work/k.kernels/manifest.json"

# --- the kernels folder deleted while tune runs -----------------------------
"$tunectl" tune "$model" --layout nchw --trials 12 --log "$work/del.json" --kernels "$work/k.kernels" -q >/dev/null 2>&1 &
pid=$!
sleep 1
rm -rf "$work/k.kernels"
wait "$pid"
check "tune ended well although its kernels folder was deleted" test $? -eq 0
check "the kernels folder has its manifest" test -s "$work/k.kernels/manifest.json"
check "the kernels folder has its library" test -s "$work/k.kernels/libtunectl_kernels.so"
check "no partial folder is left beside it" test -z "$(ls -A "$work" | grep partial)"

finish "writers"
