#!/usr/bin/env bash
# What CI runs on the fresh machine (.ci/run starts it there): the README's
# setup and test commands with 2 build jobs, the kernel-cache regeneration
# from the committed tuning logs, then the sanitizer run of the tests that
# read outside input (README "Fuzzing and sanitizers") and each fuzz target
# for 30 s (a fixed seed: every run tries the same mutations, as far as it gets).
# The property tests, in the sanitizer run too, try a tenth of their random
# cases (TUNECTL_PROPERTY_SHARE, test/support/property_cases.h; README
# "Tests"), to fit CI's hour on 2 cores of the slowest CI machine so far.
set -euo pipefail
cd "$(dirname "$0")/.."
# step NAME CMD...: runs CMD and says how long it took (CI's hour is tight).
step() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "ci: $name took $((SECONDS - start)) s (at $((SECONDS / 60)) min)"
}
export TUNECTL_PROPERTY_SHARE=0.1
step install bash scripts/install-deps.sh
step "build and tests" env JOBS=2 bash scripts/test.sh
step "kernel cache" env JOBS=2 bash scripts/regen-kernel-cache.sh
step sanitizers env JOBS=2 bash scripts/test.sh --sanitize
step fuzzing env FUZZ_SEED=1 bash scripts/fuzz.sh all 30
