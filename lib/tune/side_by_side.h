// Programs of one task built in this process and timed side by side, call
// by call (runtime::time_interleaved), each call as the tuner times a
// candidate (measure::timing_options_for: its constants evicted, its other
// inputs handed over to the threads). For comparing programs that were
// each measured before, at another time: `log rank --retime` and the
// runoff that ends `tune` (runoff.h). No worker process: these programs
// ran once already, and a check against the reference comes first where
// their code generation may have changed since.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "check/reference_check.h"
#include "lower/lower.h"
#include "measure/measure.h"
#include "runtime/kernel.h"
#include "runtime/timer.h"
#include "te/compute_dag.h"

namespace tunectl::tune {

class SideBySide {
 public:
  // `options` times the calls (its backend builds; cpu_calls calls each);
  // `seed` makes the inputs (check::check_inputs).
  SideBySide(std::shared_ptr<const te::ComputeDAG> dag, measure::MeasureOptions options, uint64_t seed);

  // Builds a program (UserError or a backend's exception when it cannot);
  // returns its index.
  size_t add(const lower::LoweredFunc& func);
  // Runs program i once on NaN-poisoned outputs against the reference:
  // "" when they match, else what differs.
  std::string check(size_t i);
  // The timed calls of each program of `which` (one call per repeat),
  // their calls interleaved.
  std::vector<runtime::Timing> time(const std::vector<size_t>& which);
  // The programs of `which` timed in `rounds` rounds: in each, every
  // program is timed as a worker times a candidate (a warm-up call, then its
  // calls), in an order that reverses every round; the calls of all rounds
  // per program. Each program's calls follow its own, as when it was first
  // measured, and the rounds share out the host's drift. Interleaved call
  // by call instead (time()), programs meet each other's leftovers: the
  // output rows another program's threads wrote, intermediates of other
  // sizes in the scratch pool.
  std::vector<runtime::Timing> time_in_rounds(const std::vector<size_t>& which, int rounds);
  // Frees program i's kernel and packed constants (its index stays taken).
  void release(size_t i);

 private:
  struct Program {
    std::unique_ptr<runtime::Kernel> kernel;
    std::vector<runtime::NDArray> packed;
    std::vector<void*> args;
    runtime::TimingOptions timing;
  };
  std::shared_ptr<const te::ComputeDAG> dag_;
  measure::MeasureOptions options_;
  uint64_t seed_;
  std::vector<runtime::NDArray> inputs_;
  std::vector<runtime::NDArray> outputs_;
  std::unique_ptr<check::ReferenceOutputs> reference_;  // made by the first check
  std::vector<std::unique_ptr<Program>> programs_;
};

}  // namespace tunectl::tune
