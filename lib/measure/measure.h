// Measurement: the step between the search (which proposes schedules) and the
// tuning log (which records what they cost). A MeasureInput is a DAG plus the
// schedule steps of one candidate; measure() turns each into a
// log::MeasureResult with costs in seconds, or an error kind and a message.
//
// Isolation. Nothing a candidate does can reach the caller. measure() forks
// up to parallel_builds worker processes per batch; each builds the
// candidates the parent hands it, one at a time (replay steps -> lower, unless
// the input comes lowered -> the backend), keeps the kernels and runs each
// (check + timing) when told to. The parent waits with poll() and a deadline,
// and kills a worker that overruns it. A worker whose candidate crashed, hung
// or failed its run in any way is ended (its kernel may have written outside
// its buffers); the kernels it kept are built again in a fresh worker. The
// outcome maps onto the error kinds of lib/log/record.h:
//   a UserError while replaying or lowering                    -> InstantiationError
//   an exception, or a crash, while compiling with LLVM       -> CompileHostError
//   ... while compiling device code (CUDA: NVRTC, a kernel that
//   spills registers, no device to load it on)                -> CompileDeviceError
//   an InternalError (a bug in tunectl) at any point           -> InternalError
//   no "built" report before build_timeout_s                  -> BuildTimeout
//   output differs from the reference (te::evaluate)          -> WrongAnswer
//   killed by a signal while running ("candidate crashed: SIGSEGV"), or
//   past the CPU-time limit (SIGXCPU), or out of its memory limit -> RuntimeError
//   no result within run_timeout_s of being told to run       -> RunTimeout
//   the worker ended without a result in any other way        -> WorkerCrash
//
// Why workers serve many candidates instead of one process per candidate: a
// process forked from a long tuning run inherits its large, fragmented heap,
// and every page LLVM's allocations reuse from it is first copied on write;
// on a virtual machine even the first read of an inherited page faults.
// A worker pays that once per page and batch; measured on ResNet-50 kernels,
// a fork per build made builds 2-4x slower than building in one process, and
// a fork per run cost ~55 ms (fork and exit) plus ~90 ms (the first cache
// flush) on top of a run's ~130 ms.
//
// Parallel builds, serial timing. The workers build back to back, one
// candidate each at a time, on every core, while nothing runs; a worker keeps
// what it built. Once nothing builds, the built candidates run one at a time
// in input order, so a timing never competes for the cores with another
// timing or with a build (on a 2-core machine a build beside a 2-thread
// kernel would double its time). A batch thus builds all its candidates
// first and then times them; results reach the caller (measure_each's sink)
// one by one as they come.
//
// Reference. The reference outputs of a DAG are computed once in the parent
// (check::reference_outputs, te::evaluate or for a big workload a sample of
// it, on check::check_inputs with reference_seed) and cached per
// DAG, so the workers inherit them through fork instead of re-evaluating the
// interpreter per candidate. A run runs the kernel once on NaN-poisoned
// outputs, compares with check::Tolerance, then times it on the same buffers
// with runtime::time_function (one warm-up call, then on the CPU single
// calls with the constants flushed before each, or each thread's L2
// emptied where they fit the L3, tune::set_cpu_timing; on a device repeats
// of launches, MeasureOptions::cpu_calls and ::repeats).
//
// Caveats of fork without exec: call measure() from a thread while no other
// thread of the caller holds a lock a worker needs (malloc is safe in glibc).
// The runtime thread pool resets itself in a forked child (pthread_atfork), so
// a worker's parallel loops start threads of their own even when the caller
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
  // warm-up plus every repeat. 0 = no cutoff.
  double slow_cutoff_s = 0;
};

// Whether this is an AddressSanitizer build, whose shadow memory rules out
// MeasureOptions::worker_memory_mib (the limit would count it) and whose
// checks catch what a test plants as a kernel's stray write.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif
inline constexpr bool kWorkerMemoryLimited = !kAddressSanitizer;

struct MeasureOptions {
  // Builds the candidates; default: the host CPU ("llvm").
  std::shared_ptr<const backend::Backend> backend;
  double build_timeout_s = 15;       // from "build" until the worker reports "built"
  double run_timeout_s = 10;         // from "run" until the candidate's costs come
  // Timing on the host CPU: cpu_calls calls, each timed alone and each
  // preceded by evicting the kernel's constants (the DAG's constant
  // placeholders and their prepacked forms) from the caches; the other
  // inputs and the outputs stay warm. That is how a kernel meets its data
  // inside a model: the producer has just written its activations, but a
  // model's weights (97.6 MiB for ResNet-50) pass through a 32 MiB L3 once
  // per run and come from DRAM. Timed warm (repeats of back-to-back calls
  // for 20 ms, as before), light ResNet-50's log estimated 16.3 ms and ran
  // 18.7-19.2 ms in the model, 0.93-0.94x of ONNX Runtime; retuned with
  // cold constants it ran 17.97-18.09 ms, 0.97-0.99x, in the same half hour
  // (the search picks programs that stream their weights). One cost per
  // call; the cost model and the log take their median. Single calls are
  // noisier than 20 ms repeats (the ten calls of a record spread by a
  // median 4.3% interquartile over the 1932 records of that retune, three
  // repeats of 20 ms by 2.1%), but both are below how much a program's
  // cost moved between passes on this shared machine (a median 10% over 80
  // ResNet-50 programs, three passes, for repeats of 10, 20 or 40 ms alike),
  // and timing fell to 10% of a tuning run's wall time (21 s of that
  // retune's 212) from a third.
  int cpu_calls = 10;
  // Timing on a device (a GPU): `repeats` repeats of back-to-back launches,
  // each lasting at least min_repeat_seconds (one launch is microseconds,
  // below what events resolve well), the device's L2 flushed between
  // repeats; one cost per repeat.
  int repeats = 3;
  double min_repeat_seconds = 0.02;
  bool flush_cache = true;           // CPU: evict the constants before each call; GPU: flush L2 between repeats
  int64_t evict_private_bytes = 0;   // CPU: runtime::TimingOptions::evict_private_bytes
  bool check_reference = true;       // compare the output with te::evaluate first
  check::Tolerance tolerance;        // for that comparison
  uint64_t reference_seed = 1;       // seed of the check inputs (also the timing inputs)
  int parallel_builds = 0;           // workers building at once; 0: this machine's cores
  // Resource limits of a worker (setrlimit), so that a runaway candidate
  // cannot take the machine: its address space may grow by this much beyond
  // what it inherits (an allocation past it fails: the candidate's error;
  // see kWorkerMemoryLimited; not with a GPU backend, whose driver reserves
  // far more address space than it uses), and each build or run may use
  // this much CPU time, all threads together (past it SIGXCPU ends the
  // worker). 0: no limit.
  int64_t worker_memory_mib = 4096;
  double worker_cpu_seconds = 300;
  // Fault-injection hooks for tests only. before_build: the worker calls it
  // with the candidate's index in the batch before building it (a test can
  // crash a build). run_override: the run child calls it
  // instead of the compiled kernel, with the candidate's index in the batch,
  // the compiled kernel (to pass through to) and the kernel's arguments, so a
  // test can make chosen candidates crash, hang or compute wrong outputs.
  std::function<void(size_t index)> before_build;
  std::function<void(size_t index, const runtime::Kernel& kernel, void* const* args)> run_override;
};

// Where the wall time of measure() went, summed over its calls. Builds and
// runs never overlap, so the parts add up to the time spent in measure().
struct MeasureTimes {
  double building_s = 0;  // workers building (the backend compiling), forks, waits
  double checking_s = 0;  // reference outputs, each candidate's first run and its comparison
  double timing_s = 0;    // the timed repeats
};

class Measurer {
 public:
  using ResultSink = std::function<void(size_t index, log::MeasureResult result)>;
  using StopCheck = std::function<bool()>;

  explicit Measurer(MeasureOptions options);
  // One result per input, in input order. Never throws for a bad candidate;
  // a SystemError when the operating system fails it (socketpair, fork, poll).
  std::vector<log::MeasureResult> measure(const std::vector<MeasureInput>& inputs);
  // Hands each input's result to sink as soon as it is known, in no fixed
  // order. Once stop() says so (an interrupt, a spent budget), what is in
  // flight finishes and nothing more starts: the inputs not yet measured get
  // no result. Errors as measure().
  void measure_each(const std::vector<MeasureInput>& inputs, const ResultSink& sink, const StopCheck& stop = {});

  const MeasureOptions& options() const { return options_; }
  const MeasureTimes& times() const { return times_; }

  // Inputs (placeholders in DAG order) and reference outputs of one DAG.
  struct Reference {
    std::vector<runtime::NDArray> inputs;
    check::ReferenceOutputs expected;
  };

 private:
  // Mutable because each worker scribbles on its own copy-on-write copy.
  Reference& reference_for(const std::shared_ptr<const te::ComputeDAG>& dag);

  MeasureOptions options_;
  MeasureTimes times_;
  // Keyed by DAG address; the shared_ptr keeps the key's DAG alive.
  std::map<const te::ComputeDAG*, std::pair<std::shared_ptr<const te::ComputeDAG>, Reference>> references_;
};

}  // namespace tunectl::measure
