// Hand-written GPU schedules for tests, the shape of Ansor's GPU sketch
// (ALGORITHMS.md): the output's space loops tiled block / vthread / thread /
// inner and fused per level, a local accumulator attached at the thread
// level whose reduction is split in two, and each input cached in shared
// memory at the outer reduction loop, filled cooperatively by a fused loop
// bound to threadIdx.x. Test support: the GPU search builds its states by
// rules (lib/search).
#pragma once

#include <string>

#include "schedule/gpu_default_schedule.h"
#include "schedule/state.h"
#include "target/target.h"

namespace tunectl::schedule {

// The index of the stage whose op is `name`; fails the test when none is.
int stage_named(const State& s, const std::string& name);

// Tile factors of one space axis: blocks come out of the rest.
struct GpuTile {
  int64_t vthreads = 1, threads = 1, inner = 1;
};

// matmul (ops registry: M, N, K) scheduled as above: i and j tiled by ti
// and tj, k split by k_inner; shared tiles of A and B when `shared`.
State gpu_matmul(int64_t m, int64_t n, int64_t k, GpuTile ti, GpuTile tj, int64_t k_inner, bool shared = true);

// The cuda target of the built-in table for arch, without asking any device.
target::Target cuda_target(const std::string& arch = "sm_90");

// y = x > 0.25 ? half(d) : max(x * 3 + x, half(exp(x))) + half(int(x * 8))
// on 37 float16 values x and doubles d: every way a float16 value meets
// code (compared, computed on, from and to float32, double and int, a
// float16 constant), scheduled by gpu_default_schedule.
State float16_conversions();

}  // namespace tunectl::schedule
