#include "check/reference_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "ir/functor.h"
#include "te/evaluate.h"

namespace tunectl::check {

namespace {

// True when some op applies a function that is only finite (or only
// well-conditioned) on positive arguments.
bool needs_positive_inputs(const te::ComputeDAG& dag) {
  bool positive = false;
  for (const te::Tensor& t : dag.ops()) {
    if (t->is_placeholder()) continue;
    ir::post_order_visit(t->body, [&](const ir::Expr& e) {
      if (e.kind() == ir::ExprKind::Div) positive = true;
      if (const auto* call = e.as<ir::CallNode>()) {
        positive |= call->func == ir::MathFunc::sqrt || call->func == ir::MathFunc::log ||
                    call->func == ir::MathFunc::pow;
      }
    });
  }
  return positive;
}

bool has_nan(const runtime::NDArray& a) {
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (std::isnan(a.get(i))) return true;
  }
  return false;
}

double largest_finite_magnitude(const runtime::NDArray& a) {
  double largest = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i)
    if (std::isfinite(a.get(i))) largest = std::max(largest, std::abs(a.get(i)));
  return largest;
}

// Flat indices of the elements of `shape` with some index 0 or last (up to
// kBorderSamples of them, in order), then kRandomSamples drawn from seed.
std::vector<int64_t> sample_positions(const std::vector<int64_t>& shape, uint64_t seed) {
  int64_t total = 1;
  for (int64_t e : shape) total *= e;
  std::vector<int64_t> out;
  std::vector<int64_t> x(shape.size(), 0);
  for (int64_t flat = 0; flat < total && static_cast<int64_t>(out.size()) < kBorderSamples; ++flat) {
    bool border = false;
    for (size_t d = 0; d < shape.size(); ++d) border |= x[d] == 0 || x[d] == shape[d] - 1;
    if (border) out.push_back(flat);
    for (size_t d = shape.size(); d-- > 0 && ++x[d] == shape[d];) x[d] = 0;
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any(0, total - 1);
  for (int64_t i = 0; i < kRandomSamples; ++i) out.push_back(any(rng));
  return out;
}

// The elements of a at positions, as a 1-D array.
runtime::NDArray gather(const runtime::NDArray& a, const std::vector<int64_t>& positions) {
  runtime::NDArray out(a.dtype(), {static_cast<int64_t>(positions.size())});
  for (size_t i = 0; i < positions.size(); ++i) out.set(static_cast<int64_t>(i), a.get(positions[i]));
  return out;
}

}  // namespace

std::vector<runtime::NDArray> check_inputs(const te::ComputeDAG& dag, uint64_t seed) {
  std::mt19937_64 rng(seed);
  bool positive = needs_positive_inputs(dag);
  return te::random_inputs(dag, rng, positive ? 0.5 : -1.0, positive ? 1.5 : 1.0);
}

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

CheckResult compare_outputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& outputs,
                            const std::vector<runtime::NDArray>& expected, const Tolerance& tolerance) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = dag.outputs()[i]->name;
    if (has_nan(expected[i])) return {false, "reference output " + name + " has NaN on these inputs"};
    const double atol = tolerance.atol + tolerance.scale_rtol * largest_finite_magnitude(expected[i]);
    runtime::CompareResult cmp = runtime::all_close(outputs[i], expected[i], tolerance.rtol, atol);
    if (!cmp.ok) return {false, "output " + name + ": " + cmp.message};
  }
  return {};
}

namespace {

// Up to kBorderSamples + kRandomSamples evenly spaced flat indices of the
// elements of `a` that are not NaN.
std::vector<int64_t> written_positions(const runtime::NDArray& a) {
  std::vector<int64_t> written;
  for (int64_t i = 0; i < a.num_elements(); ++i)
    if (!std::isnan(a.get(i))) written.push_back(i);
  const size_t most = kBorderSamples + kRandomSamples;
  if (written.size() <= most) return written;
  std::vector<int64_t> spaced;
  for (size_t k = 0; k < most; ++k) spaced.push_back(written[k * (written.size() - 1) / (most - 1)]);
  return spaced;
}

}  // namespace

bool is_sampled(const te::ComputeDAG& dag) { return dag.flop_count() > kSampledReferenceFlops; }

bool emulate_in_part(const te::ComputeDAG& dag) {
  // What the blocks run wrote is told by the NaN poison: float outputs only.
  for (const te::Tensor& t : dag.outputs())
    if (!ir::is_float(t->dtype())) return false;
  return dag.flop_count() > kWholeEmulationFlops;
}

ReferenceOutputs reference_outputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& inputs,
                                   uint64_t seed) {
  ReferenceOutputs r;
  if (is_sampled(dag)) {
    for (const te::Tensor& t : dag.outputs()) r.positions.push_back(sample_positions(t->shape(), seed));
  }
  r.values = te::evaluate_at(dag, inputs, r.positions);
  return r;
}

CheckResult compare_outputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& outputs,
                            const ReferenceOutputs& expected, const Tolerance& tolerance) {
  if (expected.positions.empty()) return compare_outputs(dag, outputs, expected.values, tolerance);
  std::vector<runtime::NDArray> sampled_outputs, sampled_expected;
  for (size_t i = 0; i < outputs.size(); ++i) {
    sampled_outputs.push_back(gather(outputs[i], expected.positions[i]));
    sampled_expected.push_back(gather(expected.values[i], expected.positions[i]));
  }
  CheckResult r = compare_outputs(dag, sampled_outputs, sampled_expected, tolerance);
  if (!r.ok) r.message += " (among the elements sampled by check::reference_outputs)";
  return r;
}

std::vector<void*> raw_pointers(const std::vector<runtime::NDArray*>& args) {
  std::vector<void*> raw;
  for (runtime::NDArray* a : args) raw.push_back(a->raw());
  return raw;
}

CheckResult check_against_reference(const te::ComputeDAG& dag, const KernelRunner& kernel, uint64_t seed,
                                    const Tolerance& tolerance, bool partial) {
  std::vector<runtime::NDArray> inputs = check_inputs(dag, seed);
  // Before the kernel runs, which could scribble on its inputs.
  ReferenceOutputs expected;
  if (!partial) expected = reference_outputs(dag, inputs, seed);
  std::vector<runtime::NDArray> outputs = poisoned_outputs(dag);
  std::vector<runtime::NDArray*> args;
  for (auto& a : inputs) args.push_back(&a);
  for (auto& a : outputs) args.push_back(&a);
  kernel(args);
  if (partial) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      expected.positions.push_back(written_positions(outputs[i]));
      if (expected.positions.back().empty())
        return {false, "output " + dag.outputs()[i]->name + ": the blocks run wrote none of its elements"};
    }
    // On fresh inputs of the same seed: the run may have scribbled on its own.
    expected.values = te::evaluate_at(dag, check_inputs(dag, seed), expected.positions);
  }
  return compare_outputs(dag, outputs, expected, tolerance);
}

}  // namespace tunectl::check
