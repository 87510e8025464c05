// Checks a compiled kernel against the reference evaluator (te::evaluate) on
// seeded random inputs. Used by `tunectl compile --check`, the benchmarks and
// the property tests; later by measurement, where a wrong answer is an error
// kind and never a "best" program.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "te/compute_dag.h"

namespace tunectl::check {

// |actual - expected| <= atol + rtol * |expected|. The defaults allow for
// fp32 reassociation (FMA contraction, reordered or vectorized reductions) on
// sums of up to a few thousand products of values in [-1, 1].
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-4;
};

// Arguments in LoweredFunc order (placeholders, then outputs), one pointer each.
using KernelRunner = std::function<void(void* const* args)>;

struct CheckResult {
  bool ok = true;
  std::string message;  // names the output and first mismatch when !ok
};

// Outputs filled with NaN, so an element the kernel never writes shows up.
std::vector<runtime::NDArray> poisoned_outputs(const te::ComputeDAG& dag);

CheckResult check_against_reference(const te::ComputeDAG& dag, const KernelRunner& kernel, uint64_t seed,
                                    const Tolerance& tolerance = {});

// Pointers to inputs then outputs, in kernel argument order.
std::vector<void*> kernel_args(std::vector<runtime::NDArray>& inputs, std::vector<runtime::NDArray>& outputs);

}  // namespace tunectl::check
