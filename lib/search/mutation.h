// Mutations of the evolutionary search (Ansor section 5.1, ALGORITHMS.md):
// small random edits of a complete state's history, replayed from
// State::initial so the result is a valid state or nothing. Kinds:
//   tile size      move a factor between two lengths of one split (or the
//                  loop above it), keeping the innermost within
//                  SearchParams::max_innermost_split_factor
//   parallel       fuse one more or one fewer outer loop into the parallel loop
//   unroll         pick another auto_unroll_max_step value
//   compute at     move a stage computed at a loop to another loop of its target
#pragma once

#include <optional>
#include <random>

#include "schedule/state.h"
#include "search/search_params.h"

namespace tunectl::search {

// One random mutation of state (a kind chosen at random among those that
// apply); nullopt when params.max_retries tries produced no valid state.
std::optional<schedule::State> mutate(const schedule::State& state, std::mt19937_64& rng,
                                      const SearchParams& params = {});

}  // namespace tunectl::search
