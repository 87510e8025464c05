#!/usr/bin/env bash
# Builds and runs every test (the slow-labelled ones too) with CTest.
#
# --sanitize: instead, builds the tests of the modules that read what comes
# from outside or run candidates in forked workers (ir, runtime, te,
# schedule, log, graph, measure, kernels, and the fuzz targets' regression
# replays), of lower, whose GPU emulator switches stacks (fibers) and
# unwinds them when a kernel fails, and of ops and codegen, whose reference
# evaluations and generated code compute every integer type, with
# AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/sanitize-build.sh) and runs them; any report fails the test. This
# subset is what CI runs under the sanitizers: the rest (search, tuning,
# benchmarks, the command line) mostly drives the same code for longer, and
# the whole suite would more than double CI's hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --sanitize ]; then
  shift
  modules=(ir runtime te schedule log graph measure kernels lower ops codegen)
  targets=("${modules[@]/#/test_}")
  for f in onnx_import log_line steps_json tensor_file; do targets+=("fuzz_$f" "fuzz_${f}_replay"); done
  scripts/sanitize-build.sh "${targets[@]}"
  regex="^($(IFS='|'; echo "${modules[*]}")|fuzz):"
  # Leaks are reports too; the suppressions name third-party libraries only.
  # allow_user_segv_handler: a measurement worker restores the default
  # action of SIGSEGV, so that a crashing candidate ends it by that signal
  # (the parent reads the signal) as in a normal build.
  export ASAN_OPTIONS=detect_leaks=1:allow_user_segv_handler=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS=suppressions=$PWD/test/sanitize/lsan.supp:print_suppressions=0
  exec ctest --test-dir build-sanitize --output-on-failure -j "${JOBS:-$(nproc)}" -LE slow -R "$regex" "$@"
fi
scripts/build.sh
ctest --test-dir build --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
