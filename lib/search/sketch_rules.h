// Internal to lib/search: the sketch rules and random annotation of each
// target kind, and the stage queries and tile sampling they share. The
// target picks one SketchRules (sketch_rules()); generate_sketches and
// annotate_randomly (sketch.h) drive whichever it is:
//   CPU (sketch.cpp, sketch_annotation.cpp)      SSRSRS tiles, packing, rfactor;
//                                                parallel, vectorize, unroll
//   GPU (gpu_sketch.cpp, gpu_annotation.cpp)     SSSRRSRS tiles bound to blocks,
//                                                vthreads and threads, shared
//                                                cache reads fetched cooperatively;
//                                                warp-aligned tiles within the
//                                                target's limits, unroll
#pragma once

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "schedule/state.h"
#include "search/search_params.h"
#include "target/target.h"

namespace tunectl::search {

struct SketchRules {
  // The states that follow from s by the rules for stage i (s itself when
  // no rule applies). Stages are visited from the last to the first.
  std::vector<schedule::State> (*expand)(const schedule::State& s, int i, const SearchParams& params);
  // What every sketch becomes once all its stages are visited.
  schedule::State (*finish)(const schedule::State& s);
  // A complete state from a sketch: its placeholder tile lengths drawn and
  // its annotations added; nullopt when a step of the draw does not apply.
  std::optional<schedule::State> (*draw_annotation)(const schedule::State& sketch, std::mt19937_64& rng,
                                                    const SearchParams& params);
};

const SketchRules& sketch_rules(const target::Target& target);

std::vector<schedule::State> expand_cpu(const schedule::State& s, int i, const SearchParams& params);
std::vector<schedule::State> expand_gpu(const schedule::State& s, int i, const SearchParams& params);
schedule::State finish_gpu_sketch(const schedule::State& s);
std::optional<schedule::State> draw_cpu_annotation(const schedule::State& sketch, std::mt19937_64& rng,
                                                   const SearchParams& params);
std::optional<schedule::State> draw_gpu_annotation(const schedule::State& sketch, std::mt19937_64& rng,
                                                   const SearchParams& params);

// --- stage queries (sketch.cpp) ---

// Ansor's NeedsMultiLevelTiling: a reduction where some input is read
// without one of the output axes, so each value read is reused across that
// axis (matmul, conv); pooling and row sums read every point once.
bool has_data_reuse(const te::Tensor& op);
// The product of v[begin, end).
int64_t product(const std::vector<int64_t>& v, size_t begin, size_t end);
// Iterations of op's reduction per output; 0 for no reduction.
int64_t reduce_extent(const te::Tensor& op);

// The single elementwise reader of stage i that can follow its tiles: same
// shape, still its untouched root loops, computed at the root. -1 if none.
int fusible_consumer(const schedule::State& s, int i);
// The stages before i whose buffers stage i loads, in stage order.
std::vector<int> stages_read_by(const schedule::State& s, int i);
// Multi-level tiling of stage i (fresh loops) by structure, Ansor's string
// of tile levels from outer to inner ("SSRSRS" on the CPU, "SSSRRSRS" on
// the GPU): each spatial axis splits into as many loops as there are S, each
// reduce axis as many as R, with placeholder lengths of 1, and the loops are
// ordered level by level as the string says. Returns the history index of
// each spatial axis's split.
std::vector<int> multi_level_tile(schedule::State& s, int i, const std::string& structure);

// Whether every stage that computes a Winograd convolution by rows of
// tiles (sketch.cpp, fuse_winograd_blocks) splits its image's rows into
// whole rows of tiles, a divisor of their count per block, and the stages
// inside tile each block's tiles by a divisor of their count. A split
// through a row, or past the block's last tile, makes bound inference take
// the producers' regions across rows, which their indices wrap: each block
// then pads and transforms the whole image again.
bool winograd_blocks_exact(const schedule::State& s);
// The tiles of the Winograd convolution a state computes by rows of tiles:
// the tile size, tile rows and columns, all tiles (batch included); nullopt
// for any other state.
struct WinogradTiles {
  int64_t m = 0;
  int64_t rows = 0;
  int64_t columns = 0;
  int64_t all = 0;
};
std::optional<WinogradTiles> winograd_tiles(const schedule::State& s);

// --- tile sampling (sketch_annotation.cpp) ---

int pick(std::mt19937_64& rng, size_t n);
bool chance(std::mt19937_64& rng, double p);
// The divisors of n up to max, ascending.
std::vector<int64_t> divisors(int64_t n, int64_t max);
// Inner lengths (outer to inner) of a k-way tile of extent, like Ansor's
// SampleTileSize: mostly a factorization into divisors; now and then a
// non-dividing factor (guarded loops). Their product never exceeds extent.
// The innermost length is at most max_innermost; with align > 0 it is a
// multiple of align when extent has such a divisor within that bound.
std::vector<int64_t> sample_lengths(int64_t extent, size_t k, int64_t align, int64_t max_innermost,
                                    std::mt19937_64& rng);
// The auto-unroll pragma drawn from params.auto_unroll_configs on stage i
// (none when the draw is 0).
void add_auto_unroll(schedule::State& s, int i, std::mt19937_64& rng, const std::vector<int>& configs);

}  // namespace tunectl::search
