#!/usr/bin/env bash
# Regenerates the kernel cache from the committed tuning logs, as a CI job
# would: replays every log in tuning_logs/ (the best program of each task,
# rebuilt from the log alone and checked against the reference evaluator on
# random inputs) into KERNEL_CACHE/<log name>/, then replays each log a
# second time (--no-check: the first run checked it) and requires
# byte-identical files. Then, for each model here with CPU logs, rebuilds
# the compiled model from the most specific of its logs this CPU runs
# (`tunectl compile MODEL --log LOG` into KERNEL_CACHE/<log name>.compiled/),
# builds its example.c against
# the library alone and runs it on seeded inputs: its outputs must match
# `tunectl run` of the model (default schedules), and where the model has
# ONNX test data, ONNX's expected output too.
# JOBS=N logs are replayed at once (default: the cores).
# Usage: scripts/regen-kernel-cache.sh [KERNEL_CACHE (default: build/kernel-cache)]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cpu_targets.sh
cache=${1:-build/kernel-cache}
tunectl=build/cmd/tunectl
[ -x "$tunectl" ] || scripts/build.sh >/dev/null
shopt -s nullglob
logs=(tuning_logs/*.json)
if [ ${#logs[@]} -eq 0 ]; then
  echo "error: no tuning logs in tuning_logs/" >&2
  exit 2
fi
check_dir=$(mktemp -d)
trap 'rm -rf "$check_dir"' EXIT
# replay_log LOG: replays LOG into the cache, then again (unchecked) into the
# scratch folder, and requires the same files; its output is printed whole
# when it is done (two replays' lines never interleave), its status goes to
# <scratch>/<name>.status.
replay_log() {
  local log=$1 name status=0
  name=$(basename "$log" .json)
  {
    echo "== $log -> $cache/$name"
    "$tunectl" replay "$log" --kernels "$cache/$name" &&
      "$tunectl" replay "$log" --kernels "$check_dir/$name" --no-check >/dev/null &&
      { diff -r "$cache/$name" "$check_dir/$name" >/dev/null ||
          { echo "error: replaying $log twice gave different kernel files" >&2; false; }; }
  } >"$check_dir/$name.out" 2>&1 || status=$?
  echo "$status" >"$check_dir/$name.status"
  cat "$check_dir/$name.out"
}

# A replay compiles on one thread, so JOBS logs (default: the cores) are
# replayed at once.
jobs=${JOBS:-$(nproc)}
running=0
for log in "${logs[@]}"; do
  replay_log "$log" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
for log in "${logs[@]}"; do
  [ "$(cat "$check_dir/$(basename "$log" .json).status")" = 0 ] || failed+=("$log")
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "error: replaying ${failed[*]} failed (above)" >&2
  exit 1
fi
echo "kernel cache: ${#logs[@]} logs replayed and verified into $cache"

# The model a log was tuned on (tuning_logs/README.md), or nothing.
model_of() {
  local stem=$1
  for m in "models/$stem.onnx" "models/bench/$stem.onnx" "models/generated/$stem.onnx" \
           "../shared/onnx/light/$stem.onnx"; do
    if [ -f "$m" ]; then echo "$m"; return; fi
  done
  return 0
}

# Every log's kernels were checked above; the compiled model is checked once
# per model, with the most specific of its logs whose code this CPU runs:
# znver4's (name.llvm.json), else the portable AVX-512 one (x86-64-v4),
# else the AVX2 one (x86-64-v3). A CPU without AVX-512 cannot run the first
# two.
compiled=0
skipped=0
for stem in $(for l in tuning_logs/*.llvm.json; do n=$(basename "$l"); echo "${n%%.*}"; done | sort -u); do
  model=$(model_of "$stem")
  if [ -z "$model" ]; then
    echo "== $stem: no model $stem.onnx here (models/generated needs scripts/make-models.sh --large); not compiled"
    continue
  fi
  log=""
  for candidate in "tuning_logs/$stem.llvm.json" "tuning_logs/$stem.x86-64-v4.llvm.json" \
                   "tuning_logs/$stem.x86-64-v3.llvm.json"; do
    [ -f "$candidate" ] || continue
    if cpu_runs "$tunectl" "$(log_target "$candidate")" "$check_dir/probe"; then
      log=$candidate
      break
    fi
  done
  if [ -z "$log" ]; then
    echo "== $stem: this CPU runs the code of none of its logs; not compiled"
    skipped=$((skipped + 1))
    continue
  fi
  name=$(basename "$log" .json)
  target=$(log_target "$log")
  out=$cache/$name.compiled
  work=$check_dir/$name
  echo "== $log + $model -> $out ($target)"
  "$tunectl" compile "$model" --log "$log" --target "$target" --name "$stem" -o "$out" -q
  (cd "$out" && cc -O2 -Wall example.c -I. -L. -l"$stem" -Wl,-rpath,'$ORIGIN' -o example)
  # Seeded inputs (the ONNX test data's where there is some), the run's outputs.
  inputs=()
  onnx_input=${model%.onnx}_input_0.pb
  [ -f "$onnx_input" ] && inputs=(--input "$onnx_input")
  "$tunectl" run "$model" --target "$target" --seed 1 "${inputs[@]}" --save-inputs "$work/in" \
    --output-dir "$work/want" -q >/dev/null
  mkdir -p "$work/out"
  "$out/example" "$out" "$work/out" "$work/in" >/dev/null
  "$tunectl" run "$model" --target "$target" --seed 1 "${inputs[@]}" --output-dir "$work/check" \
    --expected "$work/out" -q
  onnx_output=${model%.onnx}_output_0.pb
  if [ -f "$onnx_output" ]; then
    mkdir -p "$work/onnx" && cp "$onnx_output" "$work/onnx/output_0.pb"
    "$tunectl" run "$model" --target "$target" "${inputs[@]}" --output-dir "$work/check" --expected "$work/onnx" -q
  fi
  compiled=$((compiled + 1))
done
echo "compiled models: $compiled rebuilt from their logs; each example's outputs match tunectl run" \
  "($skipped left out: no log of theirs runs on this CPU)"
