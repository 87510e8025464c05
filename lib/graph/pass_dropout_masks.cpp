// draw_dropout_masks: a Dropout in training mode with a `seed` attribute
// drops the elements its seed picks, so its mask is a constant of the model.
// It is drawn here, at compile time, the way ONNX's reference draws it
// (numpy's legacy generator: np.random.seed(seed), then uniform(0, 1,
// x.shape) >= ratio), and the node becomes x * (mask / (1 - ratio)): the
// same outputs as ONNX's reference for the same seed, and an elementwise
// multiply that fuses like any other. Every run of the compiled model uses
// that one mask. A training Dropout without a seed, or whose ratio is not a
// constant, is left to its converter, which refuses it.
#include <cstdint>
#include <random>
#include <string>

#include "graph/passes.h"
#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::graph {

namespace {

// A constant scalar input of node n, or nullptr when it is not one.
const runtime::NDArray* constant_input(const Graph& g, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i].empty() || !g.is_constant(n.inputs[i])) return nullptr;
  const runtime::NDArray& a = g.constants.at(n.inputs[i]);
  return a.num_elements() == 1 ? &a : nullptr;
}

// numpy's RandomState.random_sample: a double in [0, 1) from two 32-bit
// outputs of MT19937 (53 random bits).
double next_double(std::mt19937& gen) {
  const uint32_t a = gen() >> 5, b = gen() >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

}  // namespace

Graph draw_dropout_masks(Graph g) {
  for (Node& n : g.nodes) {
    if (n.op_type != "Dropout" || g.opset < 12 || !n.attrs.has("seed")) continue;
    const runtime::NDArray* training = constant_input(g, n, 2);
    if (!training || training->get(0) == 0) continue;
    const runtime::NDArray* ratio_input = constant_input(g, n, 1);
    if (n.inputs.size() > 1 && !n.inputs[1].empty() && !ratio_input) continue;
    const double ratio = ratio_input ? ratio_input->get(0) : 0.5;
    if (ratio == 0) continue;  // the identity: the converter's case
    user_check(ratio > 0 && ratio < 1, n.describe(), ": ratio ", ratio, " is outside [0, 1)");
    const int64_t seed = n.attrs.get_int(n, "seed");
    user_check(seed >= 0 && seed <= int64_t{UINT32_MAX}, n.describe(), ": seed ", seed,
               " is outside [0, 2^32) (numpy's legacy generator, which ONNX's reference uses)");
    user_check(!n.inputs.empty() && !n.inputs[0].empty(), n.describe(), ": has no input");

    const ValueInfo& x = g.info(n.inputs[0]);
    runtime::NDArray scaled(x.dtype, x.shape), mask(ir::DType::Bool, x.shape);
    std::mt19937 gen(static_cast<uint32_t>(seed));  // numpy's seeding of MT19937 (init_genrand)
    const double scale = 1.0 / (1.0 - ratio);
    for (int64_t i = 0; i < ops::product(x.shape); ++i) {
      const bool keep = next_double(gen) >= ratio;
      mask.set(i, keep);
      scaled.set(i, keep ? scale : 0.0);
    }
    const std::string scaled_name = g.fresh_name(n.outputs.at(0) + "_dropout_scale");
    g.constants[scaled_name] = scaled;
    g.values[scaled_name] = ValueInfo{x.dtype, x.shape};
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) g.constants[n.outputs[1]] = mask;
    n.op_type = "Mul";
    n.inputs = {n.inputs[0], scaled_name};
    n.outputs.resize(1);
    n.attrs = {};
  }
  return g;
}

}  // namespace tunectl::graph
