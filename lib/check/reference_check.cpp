#include "check/reference_check.h"

#include <limits>
#include <random>

#include "te/evaluate.h"

namespace tunectl::check {

std::vector<runtime::NDArray> poisoned_outputs(const te::ComputeDAG& dag) {
  std::vector<runtime::NDArray> outputs;
  for (const auto& t : dag.outputs()) {
    outputs.emplace_back(t->dtype(), t->shape());
    auto& out = outputs.back();
    if (ir::is_float(out.dtype())) {
      for (int64_t i = 0; i < out.num_elements(); ++i) out.set(i, std::numeric_limits<double>::quiet_NaN());
    }
  }
  return outputs;
}

std::vector<void*> kernel_args(std::vector<runtime::NDArray>& inputs, std::vector<runtime::NDArray>& outputs) {
  std::vector<void*> args;
  for (auto& a : inputs) args.push_back(a.raw());
  for (auto& a : outputs) args.push_back(a.raw());
  return args;
}

CheckResult check_against_reference(const te::ComputeDAG& dag, const KernelRunner& kernel, uint64_t seed,
                                    const Tolerance& tolerance) {
  std::mt19937_64 rng(seed);
  std::vector<runtime::NDArray> inputs = te::random_inputs(dag, rng);
  std::vector<runtime::NDArray> expected = te::evaluate(dag, inputs);
  std::vector<runtime::NDArray> outputs = poisoned_outputs(dag);
  std::vector<void*> args = kernel_args(inputs, outputs);
  kernel(args.data());
  for (size_t i = 0; i < outputs.size(); ++i) {
    runtime::CompareResult cmp = runtime::all_close(outputs[i], expected[i], tolerance.rtol, tolerance.atol);
    if (!cmp.ok) return {false, "output " + dag.outputs()[i]->name + ": " + cmp.message};
  }
  return {};
}

}  // namespace tunectl::check
