// fold_batch_norm: an inference BatchNormalization right after a Conv is an
// affine map per output channel, y = s * conv(x) + (B - s * mean) with
// s = scale / sqrt(var + epsilon), so it folds into the Conv's weights and
// bias and the node disappears. The new parameters are computed in double
// and rounded once to float, so the folded Conv agrees with Conv followed by
// BatchNormalization to fp32 rounding. Runs after constant folding, when the
// weights of the light models are constants.
#include <cmath>
#include <string>
#include <vector>

#include "graph/passes.h"

namespace tunectl::graph {

namespace {

bool all_float32_constants(const Graph& g, const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (n.empty() || !g.is_constant(n) || g.constants.at(n).dtype() != ir::DType::Float32) return false;
  return true;
}

// Whether BN node `bn` can fold into the Conv producing its input; returns
// that Conv's index or -1.
int foldable_conv(const Graph& g, const Node& bn) {
  if (bn.inputs.size() != 5 || bn.attrs.get_int(bn, "training_mode", 0) != 0) return -1;
  for (size_t k = 1; k < bn.outputs.size(); ++k) {
    const std::string& o = bn.outputs[k];
    if (!o.empty() && (!g.consumers(o).empty() || g.is_output(o))) return -1;
  }
  const std::string& x = bn.inputs[0];
  int c = g.producer(x);
  if (c < 0 || g.nodes[c].op_type != "Conv" || g.consumers(x).size() != 1 || g.is_output(x)) return -1;
  const Node& conv = g.nodes[c];
  std::vector<std::string> params(bn.inputs.begin() + 1, bn.inputs.end());
  params.push_back(conv.inputs.at(1));
  if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) params.push_back(conv.inputs[2]);
  if (!all_float32_constants(g, params)) return -1;
  // Per-channel parameters only (opset < 9's spatial=0 has them per element
  // and stays a BatchNormalization).
  const std::vector<int64_t>& wshape = g.constants.at(conv.inputs[1]).shape();
  for (size_t k = 1; k < 5; ++k) {
    const std::vector<int64_t>& s = g.constants.at(bn.inputs[k]).shape();
    if (wshape.empty() || s.size() != 1 || s[0] != wshape[0]) return -1;
  }
  return c;
}

void fold_into_conv(Graph& g, Node& conv, const Node& bn) {
  const runtime::NDArray& w = g.constants.at(conv.inputs[1]);
  const runtime::NDArray& scale = g.constants.at(bn.inputs[1]);
  const runtime::NDArray& shift = g.constants.at(bn.inputs[2]);
  const runtime::NDArray& mean = g.constants.at(bn.inputs[3]);
  const runtime::NDArray& var = g.constants.at(bn.inputs[4]);
  const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  const double epsilon = bn.attrs.get_float(bn, "epsilon", 1e-5);
  const int64_t channels = w.shape()[0];
  const int64_t per_channel = w.num_elements() / channels;

  runtime::NDArray new_w(ir::DType::Float32, w.shape());
  runtime::NDArray new_b(ir::DType::Float32, {channels});
  for (int64_t k = 0; k < channels; ++k) {
    double s = scale.get(k) / std::sqrt(var.get(k) + epsilon);
    for (int64_t j = 0; j < per_channel; ++j) {
      int64_t i = k * per_channel + j;
      new_w.set(i, w.get(i) * s);
    }
    double b = has_bias ? g.constants.at(conv.inputs[2]).get(k) : 0.0;
    new_b.set(k, (b - mean.get(k)) * s + shift.get(k));
  }

  std::string w_name = g.fresh_name(conv.inputs[1] + "_bn_folded");
  g.values[w_name] = ValueInfo{ir::DType::Float32, new_w.shape(), true};
  g.constants[w_name] = std::move(new_w);
  std::string b_name = g.fresh_name((has_bias ? conv.inputs[2] : conv.outputs[0]) + "_bn_folded_bias");
  g.values[b_name] = ValueInfo{ir::DType::Float32, {channels}, true};
  g.constants[b_name] = std::move(new_b);

  // The Conv now produces the BN's output; its old output value is gone.
  g.values.erase(conv.outputs[0]);
  conv.outputs[0] = bn.outputs[0];
  conv.inputs.resize(3);
  conv.inputs[1] = w_name;
  conv.inputs[2] = b_name;
}

}  // namespace

Graph fold_batch_norm(Graph g) {
  std::vector<bool> removed(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op_type != "BatchNormalization") continue;
    int c = foldable_conv(g, g.nodes[i]);
    if (c < 0) continue;
    fold_into_conv(g, g.nodes[c], g.nodes[i]);
    for (size_t k = 1; k < g.nodes[i].outputs.size(); ++k)
      if (!g.nodes[i].outputs[k].empty()) g.values.erase(g.nodes[i].outputs[k]);
    removed[i] = true;
  }
  g.remove_nodes(removed);
  return g;
}

}  // namespace tunectl::graph
