#!/usr/bin/env bash
# Core compiler benchmark (`tunectl bench --core`): 1024^3 fp32 matmul, naive vs hand-written step
# schedule vs oneDNN, side by side in one process. Extra flags go to
# `tunectl bench` (e.g. --size 512 --repeats 9).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
build/cmd/tunectl bench --core "$@"
