#!/usr/bin/env bash
# Configures and builds tunectl into build/ (Release). JOBS=N to set parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${JOBS:-$(nproc)}"
