#!/usr/bin/env bash
# Installs onnxruntime-node (pinned in scripts/ort/package.json) and
# ort-bench.mjs into ORT_HOME (default ~/.cache/tunectl/bench-vs-ort) unless
# that install is current, and prints the path of ort-bench.mjs there. The
# npm package's install script is skipped (--ignore-scripts): it only
# downloads GPU providers. Used by scripts/bench-vs-ort.sh and
# scripts/make-models.sh; nothing in the build or the tests needs it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ort_home="${ORT_HOME:-$HOME/.cache/tunectl/bench-vs-ort}"
if [ ! -d "$ort_home/node_modules/onnxruntime-node" ] || ! cmp -s "$here/package.json" "$ort_home/package.json"; then
  echo "installing onnxruntime-node into $ort_home" >&2
  mkdir -p "$ort_home"
  cp "$here/package.json" "$ort_home/"
  (cd "$ort_home" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
fi
# Node resolves onnxruntime-node from the script's own folder.
cp "$here/ort-bench.mjs" "$ort_home/"
echo "$ort_home/ort-bench.mjs"
