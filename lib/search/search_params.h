// SearchParams: every tunable of the per-task program search in one place
// (STYLE.md habit 7): sketch rules (sketch.h), random annotation (sketch.h),
// mutations (mutation.h) and the evolutionary search (task_search.h).
// Defaults follow Ansor's (ALGORITHMS.md) scaled to a 2-core machine, where
// lowering and featurizing a candidate is the search's main cost.
#pragma once

#include <cstdint>
#include <vector>

#include "target/target.h"

namespace tunectl::search {

struct SearchParams {
  // --- sketch rules ---
  // Also generate rfactor sketches for reductions whose spatial extent is
  // small next to their reduction (Ansor's rule; e.g. a 1xK x KxN product).
  bool enable_rfactor = true;
  // Also generate sketches that pack the input a tiled stage streams with a
  // stride (B of a matmul, the padded image of a convolution) into a
  // contiguous panel at the outermost tile loop (sketch.cpp).
  bool enable_packing = true;
  // A reduction counts as "small spatial" when its spatial extent is at most
  // this and its reduce extent is larger than it.
  int64_t rfactor_max_spatial = 64;

  // --- random annotation ---
  // Longest innermost tile of any split (Ansor: 64). Bounds the register
  // blocks and vector loops the annotation proposes.
  int64_t max_innermost_split_factor = 64;
  // Longest loop to vectorize, in elements (64 fp32 = 4 AVX-512 registers).
  int64_t max_vectorize_extent = 64;
  // Hardware-aligned tiles (beyond Ansor, in the spirit of Roller): the
  // innermost tile of a tiled stage's last spatial axis becomes its vector
  // loop, so with this probability it is drawn among the divisors that are
  // multiples of vector_lanes (the target's; for_target) ...
  double aligned_vector_tile_prob = 0.75;
  // ... and with this probability the innermost tiles of all spatial axes
  // (the accumulators a reduction keeps live) hold at most this many
  // elements: three quarters of the target's vector registers, leaving room
  // for operands (for_target: 24 of AVX-512's 32 registers, 384 fp32; 12 of
  // AVX2's 16, 96 fp32, where a fixed 384 let the search keep 16
  // accumulators in 16 registers and spill them in the inner loop).
  int64_t max_register_tile = 384;
  double register_tile_prob = 0.9;
  // With this probability a bounded register tile's non-vector axes take all
  // of the budget the vector axis leaves (64 lanes of AVX-512: 6 rows, 24
  // accumulators, as oneDNN's fp32 GEMM holds), whether or not that divides
  // the axis: lower/partition_loops.h gives the partial last tile its own
  // loop. Divisors alone leave 128 or 1024 rows at 4 (16 accumulators);
  // 6 x 64 ran BERT's 128x768x3072 dense layer at 1.01-1.04x of oneDNN on a
  // Sapphire-Rapids Xeon against 0.89-0.91x for the tuned 8 x 32.
  double full_register_tile_prob = 0.25;
  // With this probability a tiled stage gets two spatial levels only (the
  // middle tile lengths are 1): its innermost tile is then the whole of what
  // one outer iteration computes, so a fused or cache-write stage's buffer
  // is just the register tile, which LLVM keeps in registers across the
  // entire reduction (the shape of hand-written GEMM micro-kernels). Uniform
  // divisor sampling would draw all-ones middle levels almost never.
  double two_level_tile_prob = 0.4;
  // Candidate values of the auto_unroll_max_step pragma (Ansor's CPU set).
  std::vector<int> auto_unroll_configs = {0, 16, 64, 512};
  // Fuse outer spatial loops for parallelism until the fused extent reaches
  // this many chunks per core (a bound, the annotation samples below it).
  int parallel_chunks_per_core = 16;

  // --- GPU annotation (gpu_annotation.cpp) ---
  // With this probability a tile's threads per block are a multiple of the
  // warp (whole warps; Roller's hardware alignment), else any count.
  double gpu_warp_aligned_prob = 0.9;
  // Outputs one thread accumulates (vthreads x inner tiles over all axes):
  // they live in registers, 255 at most per thread.
  int64_t gpu_max_thread_outputs = 64;
  // Reduction depth of a shared tile (the product of a stage's inner reduce
  // lengths): with the block's rows and columns it sets the shared memory.
  int64_t gpu_max_reduce_tile = 32;
  // Vector lengths of a cooperative fetch (float, float2, float4 loads).
  std::vector<int64_t> gpu_fetch_vector_lengths = {1, 2, 4};
  // Ansor's GPU set of auto_unroll_max_step values (for_target puts it in
  // auto_unroll_configs for a GPU target).
  std::vector<int> gpu_auto_unroll_configs = {0, 16, 64, 512, 1024};
  // Draws of one tile's lengths before the last is taken as it is.
  int gpu_tile_draws = 64;

  // --- hardware, from the target (for_target; Ansor's HardwareParams) ---
  // What candidates are lowered for; its kind picks the sketch rules and
  // annotation (sketch.h), its GPU facts bound the GPU tiles.
  target::Target target;
  int64_t vector_lanes = 16;  // fp32 lanes of a vector register (16: AVX-512)
  int cores = 1;              // cores the parallel loops run on

  // --- evolutionary search ---
  int population = 512;          // states per generation
  int generations = 4;           // rounds of mutate -> score -> select per batch
  double mutation_prob = 0.85;   // chance a child is a mutation (else a copy of its parent)
  // Relative weights of the mutation kinds (Ansor's CPU policy): a tile
  // size moves a factor between two levels, unroll redraws the pragma,
  // compute location moves a compute_at to another loop, parallel changes
  // how many outer loops the parallel loop fuses; double buffer turns the
  // pragma on or off for every shared tile (GPU states only).
  double mutate_tile_size_weight = 0.90;
  double mutate_unroll_weight = 0.04;
  double mutate_compute_at_weight = 0.05;
  double mutate_parallel_weight = 0.01;
  double mutate_double_buffer_weight = 0.04;
  // Share of each measured batch drawn from fresh random samples instead of
  // the cost model's favourites (exploration; Ansor: 0.05).
  double eps_greedy = 0.05;
  // Best measured states of the task seeding each generation's population.
  int num_measured_seeds = 32;
  // Attempts at drawing one valid random state or mutation before giving up.
  int max_retries = 8;
};

// params with the hardware fields of `target`.
inline SearchParams for_target(SearchParams params, const target::Target& target) {
  params.target = target;
  if (target.kind == target::TargetKind::Cuda) params.auto_unroll_configs = params.gpu_auto_unroll_configs;
  params.vector_lanes = target.vector_lanes;
  if (target.kind == target::TargetKind::Llvm)
    params.max_register_tile = int64_t{target.vector_registers} * 3 / 4 * target.vector_lanes;
  params.cores = target.cores;
  return params;
}

}  // namespace tunectl::search
