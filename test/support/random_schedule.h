// Random valid schedules of a DAG, for property tests: every state it returns
// must lower and compute the same values as the unscheduled DAG. It proposes
// random steps of every kind and keeps those State::apply accepts and
// lowering then accepts (a prepacked region that cannot be laid out is only
// found there), so it also exercises the validation of every step. Test support: the search builds
// its states by rules (lib/search), never at random.
#pragma once

#include <memory>
#include <random>

#include "schedule/state.h"
#include "target/target.h"

namespace tunectl::schedule {

// A state reached from State::initial(dag) by up to num_steps accepted random
// steps (fewer when proposals keep failing). CPU-only: no GPU bindings. Keeps
// to what the CPU backend runs well: a vectorized loop is the innermost loop
// of its stage (extent <= 64, nothing attached inside), at most one parallel
// loop per stage and only in stages computed at the root, unrolled loops have
// extent <= 16.
State random_schedule(std::shared_ptr<const te::ComputeDAG> dag, std::mt19937_64& rng, int num_steps);

// The same for a GPU target: bindings to blockIdx.x/y, threadIdx.x/y and
// vthread, unrolling and vectorizing the innermost loop (CUDA vector
// accesses) instead of parallel, each step kept
// only when the state still lowers for `target` (the launch checks of
// lower/check_gpu_launch.h and lower/insert_barriers.h) and runs at most
// 2^18 stores in the GPU emulator (all threads together). The last stage's
// outer free loops are then bound to blockIdx.x and threadIdx.x where that
// still lowers, so most schedules run on many threads.
State random_gpu_schedule(std::shared_ptr<const te::ComputeDAG> dag, std::mt19937_64& rng, int num_steps,
                          const target::Target& target);

}  // namespace tunectl::schedule
