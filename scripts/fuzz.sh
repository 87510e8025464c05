#!/usr/bin/env bash
# Fuzzes tunectl's readers of outside files with libFuzzer (clang-19 from
# Debian's LLVM 19, with AddressSanitizer and UndefinedBehaviorSanitizer):
#   onnx_import   ONNX model bytes -> import -> partition -> tasks
#   log_line      tuning-log lines -> records -> DAG and replayed state
#   steps_json    `compile-op --steps` JSON -> steps -> replay -> lowering
#   tensor_file   `run --input` files: TensorProto .pb and NumPy .npy
# Usage: scripts/fuzz.sh [TARGET|all] [SECONDS]   (default: all, 60 s each;
# JOBS targets at once, default: the cores; FUZZ_SEED=N repeats a run's
# random choices, as CI does, default: a new seed each run)
#
# Builds into build-sanitize/ (the sanitizer build of scripts/test.sh
# --sanitize), seeds each corpus (build-sanitize/corpus/TARGET/, kept between
# runs, so fuzzing time adds up) from ../shared/onnx and the committed logs,
# and prints per target the executions, coverage and corpus size. An input
# that crashes, hangs (over 10 s) or allocates past 2 GiB is copied to
# test/fuzz/regressions/TARGET/, where `ctest` replays it from then on, and
# the script fails; fix the reader, then commit the input.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(onnx_import log_line steps_json tensor_file)
want=${1:-all}
seconds=${2:-60}
seed=${FUZZ_SEED:-0}  # libFuzzer's 0: a seed of its own choosing
if [ "$want" != all ]; then
  [[ " ${targets[*]} " == *" $want "* ]] || { echo "fuzz: no target '$want' (${targets[*]})" >&2; exit 2; }
  targets=("$want")
fi
build=build-sanitize
scripts/sanitize-build.sh "${targets[@]/#/fuzz_}"

shared=../shared/onnx
# seed TARGET DIR: fills the seed folder of a target (once).
seed() {
  local dir=$2 i=0 f line
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || return 0
  case $1 in
    onnx_import)
      cp models/small_cnn.onnx "$dir/"
      # Every 8th: libFuzzer runs all seeds before it looks at the clock, and
      # all 1,300 models took 3 of CI's minutes (12 imports/s sanitized).
      [ -d $shared ] && find $shared -name '*.onnx' -size -256k | sort | sed -n '1~8p' | while read -r f; do
        cp "$f" "$dir/$((i++)).onnx"; done ;;
    log_line|steps_json)
      for f in tuning_logs/*.json; do
        head -n 20 "$f" | while IFS= read -r line; do
          i=$((i + 1))
          if [ "$1" = log_line ]; then
            printf '%s\n' "$line" >"$dir/$(basename "$f" .json)-$i.json"
          else
            line=${line#*\"steps\":}
            printf '%s\n' "${line%%,\"task\":*}" >"$dir/$(basename "$f" .json)-$i.json"
          fi
        done
      done ;;
    tensor_file)
      cp models/small_cnn_input_0.pb "$dir/"
      [ -d $shared ] && find $shared/node -name 'input_*.pb' | sort | sed -n '1~8p' | while read -r f; do
        cp "$f" "$dir/$((i++)).pb"; done
      # Two .npy files: float32 (2, 3) in C order, uint8 (4,) in Fortran order.
      printf '\x93NUMPY\x01\x00\x76\x00%-117s\n' "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" \
        >"$dir/a.npy"
      head -c 24 /dev/urandom >>"$dir/a.npy"
      printf '\x93NUMPY\x01\x00\x76\x00%-117s\n' "{'descr': '|u1', 'fortran_order': True, 'shape': (4,), }" \
        >"$dir/b.npy"
      printf '\x01\x02\x03\x04' >>"$dir/b.npy" ;;
  esac
}

# fuzz_one TARGET: fuzzes it, writes its row of the table to
# $build/fuzz-TARGET.row, and keeps what it found as a regression.
fuzz_one() {
  local t=$1 corpus=$build/corpus/$1 seeds=$build/seeds/$1 artifacts=$build/artifacts/$1 log=$build/fuzz-$1.log
  mkdir -p "$corpus" "$artifacts"
  seed "$t" "$seeds"
  set +e
  ASAN_OPTIONS=detect_leaks=0 "$build/test/fuzz/fuzz_$t" "$corpus" "$seeds" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=1048576 -print_final_stats=1 -seed="$seed" \
    -artifact_prefix="$artifacts/" >"$log" 2>&1
  local rc=$?
  set -e
  local runs last cov ft corp result=ok found a
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  corp=$(ls "$corpus" | wc -l)
  if [ "$rc" -ne 0 ]; then
    mkdir -p "test/fuzz/regressions/$t"
    found=$(ls "$artifacts")
    for a in $found; do cp "$artifacts/$a" "test/fuzz/regressions/$t/$a"; done
    result="FOUND $(echo $found) (exit $rc; kept in test/fuzz/regressions/$t; log $log)"
    rm -f "$artifacts"/*
  fi
  printf '%-12s %8s %12s %8s %8s %8s  %s\n' "$t" "$seconds" "$runs" "$cov" "$ft" "$corp" "$result" \
    >"$build/fuzz-$t.row"
}

# As many targets at once as there are cores (JOBS): each still gets its
# SECONDS, on a core of its own.
jobs=${JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
  rm -f "$build/fuzz-$t.row"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
printf '%-12s %8s %12s %8s %8s %8s  %s\n' target seconds executions cov features corpus result
failed=0
for t in "${targets[@]}"; do
  cat "$build/fuzz-$t.row"
  grep -q ' FOUND ' "$build/fuzz-$t.row" && failed=1
done
exit $failed
