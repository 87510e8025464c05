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
       "(from scratch: 8-15 minutes on 2 cores)"
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
NINJA_STATUS='[%f/%t] ' cmake --build build -j "$jobs" 2>&1 | tee build/build.log | {
  shown=0
  while IFS= read -r line; do
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\  ]] || continue
    done_steps=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
    tenth=$((10 * done_steps / total))
    if [ "$total" -gt 4 ] && [ "$tenth" -gt "$shown" ]; then
      shown=$tenth
      echo "build: $done_steps/$total steps ($((10 * tenth))%)"
    fi
  done
}
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
  echo "build: FAILED (exit $rc); the failing steps and their errors (all of it in build/build.log):" >&2
  awk '/^FAILED: /{show = 1} /^\[[0-9]+\/[0-9]+\] /{show = 0} show' build/build.log | head -n 80 >&2
  exit "$rc"
fi
echo "build: done in $((SECONDS - start)) s"
