# Shared by the CLI test scripts (sourced, not run): a scratch folder $work
# removed on exit, pass/fail counters and the checks below. Commands run in
# $run_dir (default: the caller's folder); failures print the command and the
# tail of its output.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/cpu_targets.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_dir=$PWD
failures=0
passes=0
skipped=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then passes=$((passes + 1)); else fail "$what"; fi
}

# expect CODE PATTERN -- COMMAND...: runs it, checks the exit code and that
# stdout+stderr contain PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$(cd "$run_dir" && "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    fail "$* -> exit $rc (want $code, output with '$pattern'), output:"
    echo "$out" | tail -12
  else
    passes=$((passes + 1))
  fi
}

# expect_count N PATTERN -- COMMAND...: exit 0 and exactly N lines containing PATTERN.
expect_count() {
  local n=$1 pattern=$2
  shift 3
  local out rc got
  out=$(cd "$run_dir" && "$@" 2>&1)
  rc=$?
  got=$(grep -cF -- "$pattern" <<<"$out")
  if [ "$rc" -ne 0 ] || [ "$got" -ne "$n" ]; then
    fail "$* -> exit $rc, $got lines with '$pattern' (want $n), output:"
    echo "$out" | tail -12
  else
    passes=$((passes + 1))
  fi
}

# host_cnn_log TUNECTL: sets host_log and host_cpu to the first committed
# small_cnn log whose target this CPU runs: the reference CPU's (znver4,
# AVX-512), else the portable ones (x86-64-v4: AVX-512, as Intel's server
# CPUs since Skylake and AMD's since Zen 4 have it; x86-64-v3: AVX2 and FMA,
# any x86-64 CPU since Haswell and Zen 1). Fails where it runs none.
host_cnn_log() {
  local log cpu
  for log in small_cnn.llvm.json small_cnn.x86-64-v4.llvm.json small_cnn.x86-64-v3.llvm.json; do
    log=$repo/tuning_logs/$log
    cpu=$(log_target "$log")
    if cpu_runs "$1" "$cpu" "$work/runs-here"; then
      host_log=$log
      host_cpu=$cpu
      return 0
    fi
  done
  return 1
}

# skip COUNT WHY: COUNT checks that cannot run on this machine, said aloud.
skip() {
  echo "SKIP: $1 checks: $2"
  skipped=$((skipped + $1))
}

# finish NAME: prints the counts; the exit status says whether all that ran
# passed.
finish() {
  echo "$1: $passes passed, $failures failed$([ "$skipped" -eq 0 ] || echo ", $skipped skipped")"
  [ "$failures" -eq 0 ]
}
