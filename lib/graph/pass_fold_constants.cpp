// fold_constants: evaluates every node whose inputs are all constants (and
// every Shape of a value whose shape is known) with the reference evaluator,
// through the same converters that partitioning uses, so folding can never
// disagree with what a kernel would compute. One sweep in topological order
// suffices: a folded node's outputs are constants before any reader is
// visited, so Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains fold
// link by link. The same sweep gives a static shape to every value ONNX shape
// inference left unknown, by converting its node over placeholders of the
// (by then known) input shapes.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "graph/convert.h"
#include "graph/passes.h"
#include "ir/error.h"
#include "ir/printer.h"
#include "ops/op_util.h"
#include "te/compute_dag.h"
#include "te/evaluate.h"

namespace tunectl::graph {

namespace {

// One te tensor per input of node (null for an omitted optional input),
// placeholders of the inputs' shapes and dtypes.
std::vector<te::Tensor> input_placeholders(const Node& node, const Graph& g) {
  std::vector<te::Tensor> inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const std::string& name = node.inputs[i];
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    auto it = g.values.find(name);
    internal_check(it != g.values.end(), node.describe(), " reads value '", name, "' that the graph does not know");
    user_check(it->second.shape_known, "value '", name, "' (input ", i, " of ", node.describe(),
               ") has no static shape; pin the graph inputs' dimensions with --input-shape");
    inputs.push_back(te::placeholder("input" + std::to_string(i), te_shape(it->second.shape), it->second.dtype));
  }
  return inputs;
}

// The converted tensor of the node's output k, one that the model names.
// Converters leave out optional outputs they do not compute (MaxPool's
// indices, say): reading one is a UserError.
const te::Tensor& output_tensor(const Node& node, const std::vector<te::Tensor>& outputs, size_t k) {
  user_check(k < outputs.size() && outputs[k] != nullptr, node.describe(), ": output ", k, " ('", node.outputs[k],
             "') is not supported");
  return outputs[k];
}

bool foldable(const Node& node, const Graph& g) {
  if (node.op_type == "Shape" || node.op_type == "Size" || node.op_type == "EyeLike") {
    auto it = g.values.find(node.inputs.at(0));
    return it != g.values.end() && it->second.shape_known;
  }
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](const std::string& in) { return in.empty() || g.is_constant(in); });
}

// Replaces node by constants: its outputs evaluated over the constant inputs.
void fold(const Node& node, Graph& g) {
  std::vector<te::Tensor> inputs = input_placeholders(node, g);
  std::vector<te::Tensor> outputs = convert_node(node, inputs, g);
  std::vector<te::Tensor> wanted;
  std::vector<std::string> names;
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (node.outputs[k].empty()) continue;
    wanted.push_back(output_tensor(node, outputs, k));
    names.push_back(node.outputs[k]);
  }
  if (wanted.empty()) return;
  te::ComputeDAG dag(wanted);
  std::vector<runtime::NDArray> args;
  for (const te::Tensor& ph : dag.placeholders()) {
    // A Shape, Size or EyeLike node's placeholder is never read (only its
    // shape is), so every placeholder the DAG reaches stands for a constant
    // input.
    auto pos = std::find(inputs.begin(), inputs.end(), ph);
    internal_check(pos != inputs.end(), node.describe(), ": folded DAG reads a tensor that is not an input");
    const std::string& value = node.inputs[pos - inputs.begin()];
    internal_check(g.is_constant(value), node.describe(), ": folding reads non-constant input '", value, "'");
    args.push_back(runtime::with_shape(g.constants.at(value), ph->shape()));
  }
  std::vector<runtime::NDArray> results = te::evaluate(dag, args);
  // A value keeps the ONNX shape shape inference gave it (a scalar stays
  // rank 0); one it left unknown takes the te shape.
  for (size_t k = 0; k < names.size(); ++k) {
    auto it = g.values.find(names[k]);
    bool known = it != g.values.end() && it->second.shape_known;
    user_check(!known || ops::product(it->second.shape) == results.at(k).num_elements(), node.describe(),
               ": output '", names[k], "' has shape ", ir::shape_to_string(known ? it->second.shape : std::vector<int64_t>{}),
               " by the model's types, but its inputs make ", ir::shape_to_string(results.at(k).shape()));
    runtime::NDArray r = known ? runtime::with_shape(results.at(k), it->second.shape) : results.at(k);
    g.values[names[k]] = ValueInfo{r.dtype(), r.shape(), true};
    g.constants[names[k]] = std::move(r);
  }
}

// Gives every output of node a static shape and dtype, read from its
// converted tensors, when ONNX shape inference left one unknown.
void infer_output_shapes(const Node& node, Graph& g) {
  bool unknown = std::any_of(node.outputs.begin(), node.outputs.end(), [&](const std::string& o) {
    if (o.empty()) return false;
    auto it = g.values.find(o);
    return it == g.values.end() || !it->second.shape_known;
  });
  if (!unknown) return;
  std::vector<te::Tensor> outputs = convert_node(node, input_placeholders(node, g), g);
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (node.outputs[k].empty()) continue;
    const te::Tensor& t = output_tensor(node, outputs, k);
    g.values[node.outputs[k]] = ValueInfo{t->dtype(), t->shape(), true};
  }
}

// Makes the node's outputs constants when every one is empty (a dimension
// of 0): no kernel runs for them. Whether the node was folded.
bool fold_empty_outputs(const Node& node, Graph& g) {
  for (const std::string& o : node.outputs)
    if (!o.empty() && ops::product(g.info(o).shape) != 0) return false;
  for (const std::string& o : node.outputs)
    if (!o.empty()) g.constants[o] = runtime::NDArray(g.info(o).dtype, g.info(o).shape);
  return true;
}

}  // namespace

Graph fold_constants(Graph g) {
  for (const std::string& in : g.inputs) {
    user_check(g.info(in).shape_known, "graph input '", in,
               "' has a symbolic or unknown shape; pin it with --input-shape ", in, "=DIMxDIMx...");
  }
  // An empty input (a dimension of 0) has no values to wait for.
  for (size_t k = g.inputs.size(); k-- > 0;) {
    const ValueInfo& info = g.info(g.inputs[k]);
    if (ops::product(info.shape) != 0) continue;
    g.constants[g.inputs[k]] = runtime::NDArray(info.dtype, info.shape);
    g.inputs.erase(g.inputs.begin() + static_cast<int64_t>(k));
  }
  std::vector<bool> folded(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    if (foldable(node, g)) {
      fold(node, g);
      folded[i] = true;
    } else {
      infer_output_shapes(node, g);
      folded[i] = fold_empty_outputs(node, g);
    }
  }
  g.remove_nodes(folded);
  return g;
}

}  // namespace tunectl::graph
