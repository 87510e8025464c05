// Sketch generation and random annotation (Ansor section 4, ALGORITHMS.md
// "Ansor sketch rules"): a ComputeDAG -> a few sketches (loop structures with
// tile sizes left open) -> complete states with random tile sizes and
// annotations, the initial population of the evolutionary search.
//
// A sketch is a schedule::State reached by rule-chosen steps from
// State::initial. Convention: a SplitStep in a sketch's history is a tile
// placeholder whose lengths are all 1, or a split the rule fixes (a
// Winograd convolution's rows split by its tile size), which annotation
// keeps; annotation fills the placeholders' lengths (editing
// the history and replaying it, so FollowSplit steps follow) and then appends
// annotation steps (parallel, vectorize, unroll pragma). Rules, applied from
// the last stage to the first (CPU):
//   always-inline       an elementwise stage that is not an output is inlined
//   multi-level tiling  a stage with data reuse (a reduction) gets SSRSRS tiles
//   tiling with fusion  ... and its single elementwise consumer follows its
//                       outer tiles (FollowSplit) with the stage computed at it
//   cache-write         a reusing stage without a fusible consumer gets a local
//                       cache-write stage, tiled with fusion into the original
//   rfactor             a reduction with small spatial extent (SearchParams)
//   Winograd passes     each transform's first pass per tile inside its
//                       second, both unrolled; or the whole convolution by
//                       rows of tiles inside its output image's loops
//   skip                other stages keep their loops (annotation parallelizes
//                       and vectorizes them)
#pragma once

#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "schedule/state.h"
#include "search/candidate.h"
#include "search/search_params.h"

namespace tunectl::search {

// The sketches of a DAG, deterministic (same DAG -> same sketches, same
// order); at least one for every DAG.
std::vector<schedule::State> generate_sketches(std::shared_ptr<const te::ComputeDAG> dag,
                                               const SearchParams& params = {});

// A complete state from a sketch: random tile sizes for its placeholder
// splits, parallel outer loops, vectorized innermost loops, an auto-unroll
// pragma. Every state returned is valid (it lowers and computes the DAG)
// and comes lowered (candidate.h; the seconds lowering took are added to
// *lowering_seconds when given); nullopt when params.max_retries draws all
// failed to apply or to lower.
std::optional<Candidate> annotate_randomly(const schedule::State& sketch, std::mt19937_64& rng,
                                           const SearchParams& params = {}, double* lowering_seconds = nullptr);

// n annotated candidates, each from a sketch picked uniformly at random
// (fewer when annotation keeps failing).
std::vector<Candidate> sample_initial_population(const std::vector<schedule::State>& sketches, int n,
                                                 std::mt19937_64& rng, const SearchParams& params = {},
                                                 double* lowering_seconds = nullptr);

}  // namespace tunectl::search
