// Checks a compiled kernel against the reference evaluator (te::evaluate) on
// seeded random inputs. Used by `tunectl compile-op --check`, the property tests
// (JIT-compiled and interpreted kernels alike) and, later, by measurement,
// where a wrong answer is an error kind and never a "best" program.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "te/compute_dag.h"

namespace tunectl::check {

// |actual - expected| <= atol + rtol * |expected| + scale_rtol * (the
// output's largest |expected|). The defaults allow for fp32 reassociation
// (FMA contraction, reordered or vectorized reductions) on sums of up to a
// few thousand products of values in [-1, 1]. The last term is there because
// rounding follows the size of what was summed, not of the sum: an element
// that cancels to near zero keeps the error of its terms. A Winograd
// transform scales by up to 8 and cancels (ops/conv2d_winograd.h).
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-4;
  double scale_rtol = 2e-5;
};

// Runs a kernel on its arguments: inputs (placeholders in DAG order), then
// outputs, as LoweredFunc::args orders them.
using KernelRunner = std::function<void(const std::vector<runtime::NDArray*>& args)>;

struct CheckResult {
  bool ok = true;
  std::string message;  // names the output and first mismatch when !ok
};

// Seeded random inputs for the DAG's placeholders: uniform in [-1, 1), or in
// [0.5, 1.5) when the DAG takes square roots, logarithms, powers or divides,
// so that the reference is finite everywhere and a NaN means a bug.
std::vector<runtime::NDArray> check_inputs(const te::ComputeDAG& dag, uint64_t seed);

// Outputs filled with NaN, so an element the kernel never writes shows up.
std::vector<runtime::NDArray> poisoned_outputs(const te::ComputeDAG& dag);

// Compares a kernel's outputs with reference outputs (computed by
// te::evaluate on the same inputs); a NaN in the reference fails too, since
// the check inputs are chosen to keep the reference finite.
CheckResult compare_outputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& outputs,
                            const std::vector<runtime::NDArray>& expected, const Tolerance& tolerance = {});

// A DAG's reference outputs on some inputs: every element, or for a
// workload of more than kSampledReferenceFlops (a 4096^3 GEMM: minutes of
// interpretation) the elements of each output at sampled positions, its
// borders (every element with some index first or last, where guards and
// partial tiles go wrong; at most kBorderSamples) and kRandomSamples more,
// the same for a seed. The other ops are evaluated whole.
constexpr double kSampledReferenceFlops = 8e9;
constexpr int64_t kBorderSamples = 1 << 16;
constexpr int64_t kRandomSamples = 1 << 14;
struct ReferenceOutputs {
  std::vector<runtime::NDArray> values;         // one per output, meaningful at `positions` when sampled
  std::vector<std::vector<int64_t>> positions;  // flat indices per output when sampled; empty: every element
};
ReferenceOutputs reference_outputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& inputs,
                                   uint64_t seed);

// compare_outputs at the reference's positions.
CheckResult compare_outputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& outputs,
                            const ReferenceOutputs& expected, const Tolerance& tolerance = {});

// Whether dag's reference is sampled (more than kSampledReferenceFlops).
bool is_sampled(const te::ComputeDAG& dag);

// Whether an emulated GPU kernel of dag is run for part of its grid
// (backend::CheckRun): past kWholeEmulationFlops, a whole emulation takes
// minutes (the emulator runs ~10 MFLOP/s); a few blocks take seconds. Only
// when every output is float (NaN poison tells what the blocks wrote).
constexpr double kWholeEmulationFlops = 5e7;
bool emulate_in_part(const te::ComputeDAG& dag);

// Runs the kernel on seeded random inputs and compares its outputs with
// reference_outputs. A `partial` run (an emulation of part of a GPU
// kernel's grid, backend::CheckRun) is compared where it wrote: at the
// elements of its float outputs that are no longer NaN, up to
// kBorderSamples + kRandomSamples of them evenly spaced; writing none fails.
CheckResult check_against_reference(const te::ComputeDAG& dag, const KernelRunner& kernel, uint64_t seed,
                                    const Tolerance& tolerance = {}, bool partial = false);

// Raw data pointers of args, for generated kernels' calling convention.
std::vector<void*> raw_pointers(const std::vector<runtime::NDArray*>& args);

}  // namespace tunectl::check
