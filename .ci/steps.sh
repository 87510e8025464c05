#!/usr/bin/env bash
# What CI runs on the fresh machine (.ci/run starts it there): the README's
# setup and test commands with 2 build jobs, the kernel-cache regeneration
# from the committed tuning logs, then the sanitizer run of the tests that
# read outside input (README "Fuzzing and sanitizers") and each fuzz target
# for 60 s (a fixed seed: every run tries the same mutations, as far as it gets).
# The property tests run a fifth of their random cases (TUNECTL_PROPERTY_SHARE,
# test/support/property_cases.h; README "Tests"), to fit CI's hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
JOBS=2 TUNECTL_PROPERTY_SHARE=0.2 bash scripts/test.sh
bash scripts/regen-kernel-cache.sh
JOBS=2 bash scripts/test.sh --sanitize
FUZZ_SEED=1 bash scripts/fuzz.sh all 60
