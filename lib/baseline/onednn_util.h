// Shared by the oneDNN baselines (baseline/*.cpp only; it includes oneDNN):
// copying a constant tensor from the caller's plain layout into the layout a
// primitive asked for, once, when the primitive is built.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace tunectl::baseline {

// A new memory of layout `want` holding the values of `data` (layout `have`).
dnnl::memory to_layout(const dnnl::engine& engine, dnnl::stream& stream, const dnnl::memory::desc& have,
                       const float* data, const dnnl::memory::desc& want);

}  // namespace tunectl::baseline
