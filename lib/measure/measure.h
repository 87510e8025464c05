// Measurement: the step between the search (which proposes schedules) and the
// tuning log (which records what they cost). A MeasureInput is a DAG plus the
// schedule steps of one candidate; measure() turns each into a
// log::MeasureResult with costs in seconds, or an error kind and a message.
//
// Isolation. Nothing a candidate does can reach the caller: every candidate
// is built (replay steps -> lower, unless the input comes lowered -> the
// backend), checked and timed in its own
// forked child process, which reports to the parent over a socket and ends
// with _exit (no atexit handlers, no flushing of the caller's stdio). The
// parent waits with poll() and a deadline, and kills a child that overruns
// it. The outcome maps onto the error kinds of lib/log/record.h:
//   a UserError while replaying or lowering                    -> InstantiationError
//   an exception, or a crash, while compiling with LLVM       -> CompileHostError
//   an InternalError (a bug in tunectl) at any point           -> InternalError
//   no "built" report before build_timeout_s                  -> BuildTimeout
//   output differs from the reference (te::evaluate)          -> WrongAnswer
//   killed by a signal while running ("candidate crashed: SIGSEGV") -> RuntimeError
//   no result within run_timeout_s of being told to run       -> RunTimeout
//   the child ended without a result in any other way         -> WorkerCrash
// Because a fresh child serves each candidate, a crashed worker needs no
// restart: the next candidate simply gets the next child.
//
// Parallel builds, serial timing. Up to parallel_builds children build at
// once. A child that has built reports "built" and then blocks until the
// parent tells it to run; the parent lets one child at a time run (check +
// timing), in input order among those built, and only while no child is
// building, so a timing never competes for the cores with another timing
// or with a build (on a 2-core machine a build beside a 2-thread kernel
// would double its time). Builds wait for the timing in flight to end.
//
// Reference. The reference outputs of a DAG are computed once in the parent
// (te::evaluate on check::check_inputs with reference_seed) and cached per
// DAG, so the children inherit them through fork instead of re-evaluating the
// interpreter per candidate. A child runs the kernel once on NaN-poisoned
// outputs, compares with check::Tolerance, then times it on the same buffers
// with runtime::time_function (one warm-up call, repeats of at least
// min_repeat_seconds, cache flush between repeats).
//
// Caveats of fork without exec: call measure() from a thread while no other
// thread of the caller holds a lock the child needs (malloc is safe in glibc).
// The runtime thread pool resets itself in a forked child (pthread_atfork), so
// a child's parallel loops start workers of their own even when the caller
// has run parallel kernels in process.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "check/reference_check.h"
#include "backend/backend.h"
#include "log/record.h"
#include "lower/lower.h"
#include "runtime/ndarray.h"
#include "schedule/steps.h"
#include "te/compute_dag.h"

namespace tunectl::measure {

struct MeasureInput {
  std::shared_ptr<const te::ComputeDAG> dag;
  std::vector<schedule::Step> steps;
  // What lowering made of the steps, when the caller has it (the search
  // lowers every candidate once, search/candidate.h): the worker then builds
  // it instead of replaying and lowering the steps again.
  std::shared_ptr<const lower::LoweredFunc> lowered;
  // A candidate whose first (checked) run takes longer than this is not
  // timed further: that run is its one cost. The tuner passes a multiple of
  // the task's best cost, so hopeless candidates cost one run instead of a
  // warm-up plus every repeat. 0 = always time fully.
  double slow_cutoff_s = 0;
};

struct MeasureOptions {
  // Builds the candidates; default: the host CPU ("llvm").
  std::shared_ptr<const backend::Backend> backend;
  double build_timeout_s = 15;       // from fork until the child reports "built"
  double run_timeout_s = 10;         // from "run" until the child reports its costs
  int repeats = 3;                   // timed repeats, one cost each
  // Each repeat runs the kernel at least this long. 40 ms is tens of calls
  // of a typical kernel (0.1-5 ms): enough for the median of 3 repeats to
  // rank candidates, at a third of the 0.1 s that made timing the largest
  // part of a tuning run's wall time.
  double min_repeat_seconds = 0.04;
  bool flush_cache = true;           // evict caches between repeats
  bool check_reference = true;       // compare the output with te::evaluate first
  check::Tolerance tolerance;        // for that comparison
  uint64_t reference_seed = 1;       // seed of the check inputs (also the timing inputs)
  int parallel_builds = 0;           // children building at once; 0: the target's cores
  // Fault-injection hook for tests only: when set, the child calls it
  // instead of the compiled kernel, with the candidate's index in the batch,
  // the compiled kernel (to pass through to) and the kernel's arguments, so a
  // test can make chosen candidates crash, hang or compute wrong outputs.
  std::function<void(size_t index, const runtime::Kernel& kernel, void* const* args)> run_override;
};

// Where the wall time of measure() went, summed over its calls. Builds and
// runs never overlap, so the parts add up to the time spent in measure().
struct MeasureTimes {
  double building_s = 0;  // children building (the backend compiling), forks, waits
  double checking_s = 0;  // reference outputs, each candidate's first run and its comparison
  double timing_s = 0;    // the timed repeats
};

class Measurer {
 public:
  explicit Measurer(MeasureOptions options);
  // One result per input, in input order. Never throws for a bad candidate;
  // a SystemError when the operating system fails it (socketpair, fork, poll).
  std::vector<log::MeasureResult> measure(const std::vector<MeasureInput>& inputs);

  const MeasureOptions& options() const { return options_; }
  const MeasureTimes& times() const { return times_; }

  // Inputs (placeholders in DAG order) and reference outputs of one DAG.
  struct Reference {
    std::vector<runtime::NDArray> inputs;
    std::vector<runtime::NDArray> expected;
  };

 private:
  // Mutable because each child scribbles on its own copy-on-write copy.
  Reference& reference_for(const std::shared_ptr<const te::ComputeDAG>& dag);

  MeasureOptions options_;
  MeasureTimes times_;
  // Keyed by DAG address; the shared_ptr keeps the key's DAG alive.
  std::map<const te::ComputeDAG*, std::pair<std::shared_ptr<const te::ComputeDAG>, Reference>> references_;
};

}  // namespace tunectl::measure
