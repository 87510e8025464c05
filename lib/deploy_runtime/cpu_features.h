// Whether this CPU has the instruction-set features a compiled model's
// kernels were built for (the LLVM feature names of its target, as the
// kernels manifest lists them).
#pragma once

#include <string>
#include <vector>

namespace tunectl::deploy_runtime {

// The features of `wanted` this CPU lacks. Only the features that decide
// which instructions kernels may use are checked (the SSE, SSE4a, AVX,
// AVX-512, FMA and BMI families on x86); the rest are ignored.
std::vector<std::string> missing_cpu_features(const std::vector<std::string>& wanted);

}  // namespace tunectl::deploy_runtime
