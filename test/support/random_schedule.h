// Random valid schedules of a DAG, for property tests: every state it returns
// must lower and compute the same values as the unscheduled DAG. It proposes
// random steps of every kind and keeps those State::apply accepts, so it also
// exercises the validation of every step. Test support: the search builds
// its states by rules (lib/search), never at random.
#pragma once

#include <memory>
#include <random>

#include "schedule/state.h"

namespace tunectl::schedule {

// A state reached from State::initial(dag) by up to num_steps accepted random
// steps (fewer when proposals keep failing). CPU-only: no GPU bindings. Keeps
// to what the CPU backend runs well: a vectorized loop is the innermost loop
// of its stage (extent <= 64, nothing attached inside), at most one parallel
// loop per stage and only in stages computed at the root, unrolled loops have
// extent <= 16.
State random_schedule(std::shared_ptr<const te::ComputeDAG> dag, std::mt19937_64& rng, int num_steps);

}  // namespace tunectl::schedule
