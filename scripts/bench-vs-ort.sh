#!/usr/bin/env bash
# Usage: scripts/bench-vs-ort.sh MODEL.onnx [LOG]
#
# ONNX Runtime (CPU, onnxruntime-node from the npm registry) against tunectl
# on one model, side by side: first both run the same inputs once (the
# model's own test data MODEL_input_<i>.pb when it has some, else seeded
# random inputs) and every output of tunectl (tuned with LOG's best records
# when given) is compared with ONNX Runtime's; then ROUNDS rounds each time RUNS back-to-back
# runs of ONNX Runtime and of tunectl (`tunectl bench MODEL [--log LOG
# --tuned-only]`), in alternating order so that load on a shared machine hits
# both alike. Prints every round's medians, the median over rounds, and the
# ratio, and the median, min and max of the rounds' own ratios. Both sides
# use THREADS threads (default: all cores).
#
# Environment: THREADS, ROUNDS (5), RUNS (20), TUNECTL (build/cmd/tunectl),
# TARGET (tunectl's --target, default this CPU: e.g. "llvm -mcpu=znver4" to
# run a log tuned for Zen 4 on a newer CPU), LAYOUT (tunectl's --layout, e.g.
# winograd or winograd-f2 for a log tuned in that layout), ORT_HOME (where scripts/ort/install.sh puts onnxruntime-node; default
# ~/.cache/tunectl/bench-vs-ort).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 MODEL.onnx [LOG]" >&2
  exit 2
fi
model="$1"
log="${2:-}"
[ -f "$model" ] || { echo "bench-vs-ort: no model $model" >&2; exit 2; }
[ -z "$log" ] || [ -e "$log" ] || { echo "bench-vs-ort: no tuning log $log" >&2; exit 2; }
threads="${THREADS:-$(nproc)}"
rounds="${ROUNDS:-5}"
runs="${RUNS:-20}"
tunectl="${TUNECTL:-$root/build/cmd/tunectl}"
[ -x "$tunectl" ] || { echo "bench-vs-ort: no $tunectl (build first: scripts/build.sh)" >&2; exit 2; }
ort_bench="$("$root/scripts/ort/install.sh")"
ort() { THREADS="$threads" node "$ort_bench" "$@"; }
tunectl() { TUNECTL_NUM_THREADS="$threads" "$tunectl" "$@"; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log_args=()
[ -z "$log" ] || log_args=(--log "$log")
[ -z "${TARGET:-}" ] || log_args+=(--target "$TARGET")
[ -z "${LAYOUT:-}" ] || log_args+=(--layout "$LAYOUT")

echo "== $model: outputs of tunectl${log:+ (tuned by $log)} against ONNX Runtime, same inputs"
input_args=()
while IFS= read -r spec; do input_args+=(--input "$spec"); done < <(ort inputs "$model" "$work/inputs")
tunectl run "$model" "${input_args[@]}" "${log_args[@]}" --output-dir "$work/outputs" >/dev/null
ort check "$model" "$work/outputs"

echo "== $threads threads, $rounds rounds of $runs back-to-back runs each"
bench_args=()
[ -z "$log" ] || bench_args=(--log "$log" --tuned-only)
[ -z "${TARGET:-}" ] || bench_args+=(--target "$TARGET")
[ -z "${LAYOUT:-}" ] || bench_args+=(--layout "$LAYOUT")
ort_ms=()
tunectl_ms=()
ratios=()
time_ort() { ort time "$model" "$runs" | sed -n 's/.*"median_ms":\([0-9.e+-]*\).*/\1/p'; }
time_tunectl() {
  tunectl bench "$model" "${bench_args[@]}" --repeats "$runs" | sed -n 's/^\(tuned\|default\) .*median \([0-9.]*\) ms.*/\2/p'
}
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    o="$(time_ort)"; t="$(time_tunectl)"
  else
    t="$(time_tunectl)"; o="$(time_ort)"
  fi
  [ -n "$o" ] && [ -n "$t" ] || { echo "bench-vs-ort: a timing run printed no median" >&2; exit 1; }
  ort_ms+=("$o")
  tunectl_ms+=("$t")
  r="$(awk -v o="$o" -v t="$t" 'BEGIN { printf "%.3f", o / t }')"
  ratios+=("$r")
  printf 'round %d: ONNX Runtime %8.3f ms   tunectl %8.3f ms   ratio %s\n' "$round" "$o" "$t" "$r"
done

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
o="$(median "${ort_ms[@]}")"
t="$(median "${tunectl_ms[@]}")"
printf '%-14s %12s\n' "" "median (ms)"
printf '%-14s %12.3f\n' "ONNX Runtime" "$o" "tunectl" "$t"
awk -v o="$o" -v t="$t" 'BEGIN { printf "tunectl is %.2fx %s than ONNX Runtime (ONNX Runtime median / tunectl median = %.2f)\n", (o > t ? o / t : t / o), (o > t ? "faster" : "slower"), o / t }'
# A round's two sides run within seconds of each other, so its ratio is
# what a shared host's drift from one minute to the next moves least.
printf 'per round (ONNX Runtime / tunectl): median %.3f, min %.3f, max %.3f\n' "$(median "${ratios[@]}")" \
  "$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)" "$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)"
