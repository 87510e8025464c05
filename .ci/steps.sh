#!/usr/bin/env bash
# What CI runs on the fresh machine (.ci/run starts it there): the README's
# setup and test commands with 2 build jobs, the kernel-cache regeneration
# from the committed tuning logs, then the sanitizer run of the tests that
# read outside input (README "Fuzzing and sanitizers") and each fuzz target
# for 60 s (a fixed seed: every run tries the same mutations, as far as it gets).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
JOBS=2 bash scripts/test.sh
bash scripts/regen-kernel-cache.sh
JOBS=2 bash scripts/test.sh --sanitize
FUZZ_SEED=1 bash scripts/fuzz.sh all 60
