// Lowering pass (GPU): the loops of a shared tile's fill nest (fill_nest.h)
// that one thread runs become unrolled, so that its global loads are all
// issued before the first store waits for one. Left serial, each step of a
// fill is a full trip to memory: on an H100 a constructed ResNet-50
// convolution whose 9,216-float weight tile took 11 serial steps per thread
// spent 9.5 us per reduction step (1.22 ms) where the arithmetic needs a
// few. A nest whose thread stores more than kMaxUnrolledFill elements stays
// as it is: the loads all want registers, and that kernel's 22 unrolled
// spilled under its 448-thread launch bound. Tiles double_buffer pipelines
// are staged that way already.
#pragma once

#include <cstdint>

#include "lower/lower.h"

namespace tunectl::lower {

constexpr int64_t kMaxUnrolledFill = 16;

LoweredFunc unroll_fills(LoweredFunc func);

}  // namespace tunectl::lower
