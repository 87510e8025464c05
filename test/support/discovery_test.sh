#!/usr/bin/env bash
# Every Catch test case of each test executable is a CTest test of its own.
# catch_discover_tests writes each name inside a CMake bracket argument; a
# name with a ']' ended it early and folded the 19 test cases after it into
# one CTest test that ran none of them, and CI said all passed.
# Usage: discovery_test.sh BUILD_DIR MODULE...
set -u
build=$1
shift
names=$(ctest --test-dir "$build" -N | sed -nE 's/^ *Test +#[0-9]+: //p')
failed=0
for module in "$@"; do
  exe=$build/test/test_$module
  # Catch's own lists for the three specs discovery uses (test/CMakeLists.txt).
  want=$(for spec in "~[slow]~[timed]" "[slow]~[timed]" "[timed]"; do
           "$exe" --list-test-names-only "$spec"
         done | grep -c .)
  got=$(grep -cE "^$module(\((slow|timed)\))?:" <<<"$names")
  if [ "$want" -ne "$got" ]; then
    echo "FAIL: test_$module has $want test cases, CTest runs $got of them as tests;" \
         "a name with ']' (or another character discovery mangles) is the usual cause" >&2
    failed=1
  fi
done
[ $failed -eq 0 ] && echo "discovery: every test case of $# test executables is a CTest test"
exit $failed
