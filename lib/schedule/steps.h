// Schedule steps: plain-data transforms of a State (STYLE.md habit 6). Each
// has a compact JSON array form, tagged as in Ansor's logs:
//   ["SP", stage, iter, extent, [lengths...], inner_to_outer]   split
//   ["FSP", stage, iter, src_step, n_split]                    follow split
//   ["FFSP", stage, iter, [src_steps...], level, factor]       follow fused split
//   ["RE", stage, [iters...]]                                  reorder
//   ["FU", stage, [iters...]]                                  fuse (consecutive)
//   ["AN", stage, iter, "parallel"|"vectorize"|"unroll"|"blockIdx.x"|...]
//   ["CA", stage, target_stage, target_iter]                   compute_at
//   ["CI", stage]                                              compute_inline
//   ["CR", stage]                                              compute_root
//   ["CHR", stage, "shared"|"local"|"global", [reader stages]] cache_read
//   ["CHW", stage, "local"|"shared"|"global"]                  cache_write
//   ["RF", stage, iter, factor_iter]                           rfactor
//   ["PR", stage, iter, "auto_unroll_max_step$N"|"double_buffer"] pragma
//   ["PP", stage]                                              prepack
//   ["SO", stage, [axes...]]                                   storage order
// `stage` is an index into State::stages and `iter` a position in that
// stage's current loop nest (Stage::leaves) when the step is applied.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tunectl::schedule {

// Split iter into 1 + lengths.size() loops. lengths are the extents of the
// inner loops, outer to inner; the outermost gets ceil(extent / product).
// inner_to_outer is kept for log compatibility with Ansor and must be true.
struct SplitStep {
  int stage = 0;
  int iter = 0;
  int64_t extent = 0;  // the iterator's extent when split, checked on apply
  std::vector<int64_t> lengths;
  bool inner_to_outer = true;
  bool operator==(const SplitStep&) const = default;
};

// Split iter like the earlier split at history[src_step], taking its first
// n_split - 1 lengths (and merging the rest into the innermost part).
struct FollowSplitStep {
  int stage = 0;
  int iter = 0;
  int src_step = 0;
  int n_split = 0;
  bool operator==(const FollowSplitStep&) const = default;
};

// Split iter in two like the product of several earlier splits at one
// level (Ansor's FollowFusedSplitStep): length = the product of lengths[level]
// of every split at history[src_steps]. With factor the inner loop gets
// length iterations (cooperative fetching: the threads of a block); else the
// outer loop does. A GPU sketch binds such a loop to the tile's threads, and
// it keeps following them when a mutation changes the tile.
struct FollowFusedSplitStep {
  int stage = 0;
  int iter = 0;
  std::vector<int> src_steps;
  int level = 0;
  bool factor = true;
  bool operator==(const FollowFusedSplitStep&) const = default;
};

// New loop order: a permutation of all leaf positions.
struct ReorderStep {
  int stage = 0;
  std::vector<int> order;
  bool operator==(const ReorderStep&) const = default;
};

// Fuse consecutive leaves (positions in increasing order) into one loop.
struct FuseStep {
  int stage = 0;
  std::vector<int> iters;
  bool operator==(const FuseStep&) const = default;
};

struct AnnotationStep {
  int stage = 0;
  int iter = 0;
  std::string annotation;  // a name from TUNECTL_ITER_ANNOTATIONS
  bool operator==(const AnnotationStep&) const = default;
};

struct ComputeAtStep {
  int stage = 0;
  int target_stage = 0;
  int target_iter = 0;  // position in the target's leaves
  bool operator==(const ComputeAtStep&) const = default;
};

struct ComputeInlineStep {
  int stage = 0;
  bool operator==(const ComputeInlineStep&) const = default;
};

struct ComputeRootStep {
  int stage = 0;
  bool operator==(const ComputeRootStep&) const = default;
};

// Adds a stage right after `stage` that copies it into `scope`; the readers
// listed then read the copy.
struct CacheReadStep {
  int stage = 0;
  std::string scope;
  std::vector<int> readers;
  bool operator==(const CacheReadStep&) const = default;
};

// Adds a stage right before `stage` that computes its value into `scope`;
// `stage` becomes a copy of it.
struct CacheWriteStep {
  int stage = 0;
  std::string scope;
  bool operator==(const CacheWriteStep&) const = default;
};

// Factors the reduction of `stage` over reduce leaf `iter`: a new stage
// (inserted before) computes partial results with that loop as a spatial
// axis placed at position factor_iter of its spatial axes; `stage` then
// reduces over it. Shapes: "<name>.rf" has the stage's shape with
// extent(iter) inserted at factor_iter and reduces over the stage's other
// reduce leaves (or is not a reduction when there are none); the stage keeps
// its buffer and becomes a reduction over that one axis. Both get fresh
// loops (details in rfactor.cpp).
struct RfactorStep {
  int stage = 0;
  int iter = 0;
  int factor_iter = 0;
  bool operator==(const RfactorStep&) const = default;
};

struct PragmaStep {
  int stage = 0;
  int iter = 0;
  std::string pragma;  // "auto_unroll_max_step$N" or "double_buffer"
  bool operator==(const PragmaStep&) const = default;
};

// Marks `stage`, a cache_read copy of a constant placeholder, as computed
// once outside the kernel (Ansor's layout rewrite): the kernel takes the
// constant already packed, every region the copy would compute at its
// attach point laid out one after another (lower/prepack.h), and the copy
// disappears from the kernel's loops.
struct PrepackStep {
  int stage = 0;
  bool operator==(const PrepackStep&) const = default;
};

// Lays out the buffer of `stage`, a shared or local one, with its axes in
// `order` (outermost first) instead of row-major: e.g. [1, 0] stores a
// matmul's A tile k-major, so that the threads' consecutive rows of A are
// consecutive in shared memory (vector loads, no bank conflicts). Only
// where the stage's buffer lives changes, not its loops.
struct StorageOrderStep {
  int stage = 0;
  std::vector<int> order;
  bool operator==(const StorageOrderStep&) const = default;
};

using Step = std::variant<SplitStep, FollowSplitStep, FollowFusedSplitStep, ReorderStep, FuseStep, AnnotationStep, ComputeAtStep,
                          ComputeInlineStep, ComputeRootStep, CacheReadStep, CacheWriteStep, RfactorStep, PragmaStep,
                          PrepackStep, StorageOrderStep>;

nlohmann::json step_to_json(const Step& step);
// UserError naming what is wrong for a malformed array.
Step step_from_json(const nlohmann::json& j);
nlohmann::json steps_to_json(const std::vector<Step>& steps);
std::vector<Step> steps_from_json(const nlohmann::json& j);


}  // namespace tunectl::schedule
