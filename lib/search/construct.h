// Construction (`tune --search construct`; Gensor's idea with Roller's
// hardware model, ALGORITHMS.md): a task's program built without measuring
// anything. A program is a state and each schedule primitive an edge: from
// the target's sketches, annotated by the hardware-aligned draws of their
// rules, the walk follows the edges the search's mutations take (a tile
// factor moved between levels, an unroll depth, a compute location) to the
// neighbour the analytic cost (gpu_cost.h, cpu_cost.h) rates best, while one improves,
// from a few of the best starting points. Deterministic for a seed.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "search/candidate.h"
#include "search/search_params.h"

namespace tunectl::search {

struct ConstructParams {
  // Starting points drawn per sketch and walks from the best of them: 24
  // and 3 (what a measured search's seeds take) left light ResNet-50's
  // first 3x3 convolutions at 1.7x the time of a program the model rates
  // better (found with 128 and 16, which take 0.2 s per task).
  int draws_per_sketch = 128;
  int walks = 16;
  int neighbours = 8;         // edges tried per step
  int max_steps = 24;         // steps of one walk
  // Return the other walks' local optima too (Construction::other_optima),
  // each checked by `accept`: a measured search starts from them, while a
  // run that keeps only the best skips those checks (NVRTC for a GPU).
  bool other_optima = true;
};

struct Construction {
  Candidate best;              // lowered
  // The other walks' local optima the backend takes, distinct from best and
  // from each other, by estimate: more starting points for a measured search
  // (the analytic model ranks programs only roughly).
  std::vector<Candidate> other_optima;
  double estimated_seconds = 0;
  int states_rated = 0;        // states lowered and rated
  double seconds = 0;          // wall time of the construction
};

// The analytic cost of a lowered program on target: gpu_cost.h for cuda,
// cpu_cost.h for llvm.
double analytic_cost(const Lowering& lowering, const target::Target& target);

// Whether the backend takes a lowered program (the compiler's resource
// report: registers, spills), checked on the best-rated programs in turn.
using AcceptProgram = std::function<bool(const lower::LoweredFunc&)>;

// The constructed program of dag for params.target: the best-rated one
// `accept` takes (among the 16 best rated); nullopt when none lowers and
// passes.
std::optional<Construction> construct_program(std::shared_ptr<const te::ComputeDAG> dag, const SearchParams& params,
                                              uint64_t seed, const AcceptProgram& accept,
                                              const ConstructParams& construct = {});

}  // namespace tunectl::search
