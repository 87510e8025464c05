#!/usr/bin/env bash
# Builds TARGETS... in build-sanitize/: clang-19 (Debian's LLVM 19) with
# AddressSanitizer, UndefinedBehaviorSanitizer (every report fatal) and
# libFuzzer's coverage instrumentation, the build that `scripts/test.sh
# --sanitize` tests and `scripts/fuzz.sh` fuzzes. -O1 with line tables:
# readable reports, and a third less compile time than -O2 -g.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang++-19 >/dev/null || {
  echo "sanitize: needs clang-19 and libclang-rt-19-dev (scripts/install-deps.sh)" >&2
  exit 2
}
build=build-sanitize
if [ ! -f $build/build.ninja ]; then
  echo "sanitize: configuring $build (clang-19, -fsanitize=address,undefined, libFuzzer)"
  CC=clang-19 CXX=clang++-19 cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DTUNECTL_SANITIZE=address,undefined -DTUNECTL_FUZZ=ON \
    >/dev/null
fi
start=$SECONDS
cmake --build $build -j "${JOBS:-$(nproc)}" --target "$@" >$build/build.log 2>&1 || {
  grep -A20 '^FAILED' $build/build.log | head -n 60 >&2
  echo "sanitize: build FAILED (all of it in $build/build.log)" >&2
  exit 1
}
echo "sanitize: built $* in $((SECONDS - start)) s"
