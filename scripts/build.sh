#!/usr/bin/env bash
# Configures and builds tunectl into build/ (Release). JOBS=N to set parallelism.
# Says what it is doing first, since a build from scratch takes minutes. On a
# terminal, ninja's own status line shows progress; otherwise (CI, a pipe) the
# full output goes to build/build.log and a line is printed every 10% of the
# steps, and a failed build prints the failing commands and their errors.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
mkdir -p build
if [ ! -f build/build.ninja ]; then
  echo "build: configuring and building tunectl in build/ with $jobs jobs" \
       "(from scratch: about 8 minutes on 2 cores)"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >build/configure.log 2>&1 || {
  cat build/configure.log >&2
  echo "build: cmake could not configure; is every package of scripts/install-deps.sh installed?" >&2
  exit 1
}
if [ -t 1 ]; then
  exec cmake --build build -j "$jobs"
fi

start=$SECONDS
set +e
NINJA_STATUS='[%f/%t] ' cmake --build build -j "$jobs" 2>&1 | tee build/build.log | awk '
  match($0, /^\[[0-9]+\/[0-9]+\] /) {
    split(substr($0, 2, RLENGTH - 3), n, "/")
    tenth = int(10 * n[1] / n[2])
    if (n[2] > 4 && tenth > shown) { shown = tenth; printf "build: %d/%d steps (%d%%)\n", n[1], n[2], 10 * tenth; fflush() }
  }'
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
  echo "build: FAILED (exit $rc); the failing steps and their errors (all of it in build/build.log):" >&2
  awk '/^FAILED: /{show = 1} /^\[[0-9]+\/[0-9]+\] /{show = 0} show' build/build.log | head -n 80 >&2
  exit "$rc"
fi
echo "build: up to date ($((SECONDS - start)) s)"
