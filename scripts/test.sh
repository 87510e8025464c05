#!/usr/bin/env bash
# Builds and runs every test (the slow-labelled ones too) with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
