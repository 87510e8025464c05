#!/usr/bin/env bash
# Regenerates the kernel cache from the committed tuning logs, as a CI job
# would: replays every log in tuning_logs/ (the best program of each task,
# rebuilt from the log alone and checked against the reference evaluator on
# random inputs) into KERNEL_CACHE/<log name>/, then replays each log a
# second time and requires byte-identical files.
# Usage: scripts/regen-kernel-cache.sh [KERNEL_CACHE (default: build/kernel-cache)]
set -euo pipefail
cd "$(dirname "$0")/.."
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
for log in "${logs[@]}"; do
  name=$(basename "$log" .json)
  echo "== $log -> $cache/$name"
  "$tunectl" replay "$log" --kernels "$cache/$name"
  "$tunectl" replay "$log" --kernels "$check_dir/$name" >/dev/null
  diff -r "$cache/$name" "$check_dir/$name" >/dev/null || {
    echo "error: replaying $log twice gave different kernel files" >&2
    exit 1
  }
done
echo "kernel cache: ${#logs[@]} logs replayed and verified into $cache"
