// A CPU kernel cut at its root stages, for `tunectl compile-op --profile`:
// each statement at the kernel's top level (a root stage's loop nest, with
// the stages computed at its loops inside) becomes a kernel of its own, and
// the buffers the kernel allocates at its top level (the intermediate
// results that pass from one root stage to the next) become arguments of
// all of them. Run in order on the same arguments, the parts compute what
// the kernel does; each can be timed alone.
#pragma once

#include <string>
#include <vector>

#include "lower/lower.h"

namespace tunectl::lower {

struct StagePart {
  // The buffers the part writes that outlive it (the kernel's outputs or the
  // shared intermediates), comma-separated.
  std::string label;
  // Arguments: the kernel's (a prepacked constant passed packed, as the
  // kernel takes it), then the shared buffers. No packings.
  LoweredFunc func;
};

struct SplitKernel {
  std::vector<ir::Buffer> shared;  // the top-level allocations, outermost first
  std::vector<StagePart> parts;    // in the kernel's order
};

SplitKernel split_root_stages(const LoweredFunc& func);

}  // namespace tunectl::lower
