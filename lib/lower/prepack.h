// Prepacked stages (schedule::PrepackStep): a cache_read copy of a constant
// placeholder that the kernel does not compute; it takes the constant
// already packed instead. The copy's region at its attach point must be
// tile-aligned: along each axis d it starts at a multiple of its extent e_d
// for every value of the enclosing loops (true of the tile loops sketches
// attach a packed copy to). The packed layout puts every region one after
// another,
//   packed[t_0, .., t_n-1, x_0, .., x_n-1] = input[t_0 * e_0 + x_0, ..]
// (0 past the input's end) for t_d in [0, ceil(dim_d / e_d)), so the region
// starting at m is the contiguous block at t_d = m_d / e_d. A packing
// function, run once when the constant is known, fills it.
#pragma once

#include <string>
#include <vector>

#include "lower/lower.h"
#include "lower/stage_info.h"

namespace tunectl::lower {

// After infer_bounds: gives every prepacked stage its packed buffer
// (StageInfo::packed). UserError when a region is not tile-aligned, when a
// constant is prepacked twice, or when another stage still reads it unpacked.
void plan_prepacks(const schedule::State& state, std::vector<StageInfo>& stages);

// The kernel's argument list (DAG placeholders, then outputs) with each
// prepacked constant replaced by its packed buffer, and the packing
// functions of those arguments (named name + "_pack" + argument index; their
// bodies are loop IR for the passes of lower() to flatten and simplify).
void prepacked_args(const schedule::State& state, const std::vector<StageInfo>& stages, LoweredFunc& func);

}  // namespace tunectl::lower
