#!/usr/bin/env bash
# What CI runs on the fresh machine (.ci/run starts it there): the README's
# setup and test commands with 2 build jobs, then the kernel-cache
# regeneration from the committed tuning logs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
JOBS=2 bash scripts/test.sh
bash scripts/regen-kernel-cache.sh
