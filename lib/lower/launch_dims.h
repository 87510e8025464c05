// The launch of a GPU kernel, read off its lowered loop IR: a loop bound to
// blockIdx.x/y/z or threadIdx.x/y/z stands for that hardware index, so the
// grid (block) dimension of a tag is the largest extent of the loops bound
// to it. Every thread runs the whole kernel body; a bound loop whose extent
// is below the launch dimension runs its body only for the indices it covers
// (the guard code generation writes). "vthread" loops are not part of the
// launch: they run serially inside each thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "lower/lower.h"

namespace tunectl::lower {

// Threads per warp on every NVIDIA GPU: what one shuffle reaches (an
// AllReduce within a warp needs no barrier).
constexpr int64_t kWarpSize = 32;

struct LaunchDims {
  std::array<int64_t, 3> grid{1, 1, 1};   // blocks along x, y, z
  std::array<int64_t, 3> block{1, 1, 1};  // threads per block along x, y, z
  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
};

// Which hardware index a thread tag names.
struct HardwareIndex {
  bool is_block = false;  // blockIdx.* (else threadIdx.*)
  int dim = 0;            // 0, 1, 2 for x, y, z
};
// blockIdx.* and threadIdx.*; nullopt for "vthread". InternalError for any
// other tag.
std::optional<HardwareIndex> hardware_index(const std::string& thread_tag);

// InternalError when a bound loop's extent or start is not a constant (0).
LaunchDims launch_dims(const LoweredFunc& func);

}  // namespace tunectl::lower
