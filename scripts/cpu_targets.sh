# Sourced (not run) by scripts/regen-kernel-cache.sh and the CLI tests
# (test/cli/cli_lib.sh): a tuning log's target, and whether this machine's
# CPU runs code for a target. Most committed CPU logs are for znver4, which a
# CPU without AVX-512 (such as a Zen 3) cannot run: tunectl refuses the target.

cpu_targets_models=$(cd "$(dirname "${BASH_SOURCE[0]}")/../models" && pwd)

# log_target LOG: the target of LOG's first record.
log_target() {
  head -1 "$1" | grep -o '"target":"[^"]*"' | head -1 | cut -d'"' -f4
}

# cpu_runs TUNECTL TARGET SCRATCH_DIR: whether this CPU runs code for TARGET
# (a probe run of small_cnn writes into SCRATCH_DIR).
cpu_runs() {
  local out  # kept, not piped into grep: under pipefail the refusal's status would decide
  out=$("$1" run "$cpu_targets_models/small_cnn.onnx" --target "$2" --output-dir "$3" -q 2>&1 || true)
  ! grep -qF "this machine's CPU lacks" <<<"$out"
}

# foreign_cpu TUNECTL SCRATCH_DIR: sets foreign_target to a CPU target whose
# code this machine cannot run and foreign_feature to a feature it lacks:
# Sapphire Rapids (AVX512-FP16, which no AMD CPU has) or, on an Intel CPU
# that has it, Zen 5 (AVX512-VP2INTERSECT, which Intel's server CPUs lack).
# Fails where this machine runs both (test/support/foreign_cpu.h: the same).
foreign_cpu() {
  local target feature
  for target in sapphirerapids:avx512fp16 znver5:avx512vp2intersect; do
    feature=${target#*:}
    target="llvm -mcpu=${target%%:*}"
    if ! cpu_runs "$1" "$target" "$2"; then
      foreign_target=$target
      foreign_feature=$feature
      return 0
    fi
  done
  return 1
}
