#include "graph/convert.h"

#include <algorithm>

#include "graph/convert_util.h"
#include "graph/onnx_dtype.h"
#include "ops/index.h"

namespace tunectl::graph {

namespace {

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    add_nn_converters(t);
    add_elemwise_converters(t);
    add_shape_converters(t);
    add_resize_converters(t);
    add_scatter_converters(t);
    add_loss_converters(t);
    add_rnn_converters(t);
    add_quantize_converters(t);
    // The X-macro list and the converters must agree exactly.
#define TUNECTL_CHECK_CONVERTER(op, cls) internal_check(t.count(#op) == 1, "no converter for listed op " #op);
    TUNECTL_ONNX_OPS(TUNECTL_CHECK_CONVERTER)
    TUNECTL_INTERNAL_OPS(TUNECTL_CHECK_CONVERTER)
#undef TUNECTL_CHECK_CONVERTER
    size_t listed = 0;
#define TUNECTL_COUNT_OP(op, cls) ++listed;
    TUNECTL_ONNX_OPS(TUNECTL_COUNT_OP)
    TUNECTL_INTERNAL_OPS(TUNECTL_COUNT_OP)
#undef TUNECTL_COUNT_OP
    internal_check(t.size() == listed, "converters registered for ops missing from the op lists");
    return t;
  }();
  return table;
}

}  // namespace

bool is_supported_op(const std::string& op_type) {
#define TUNECTL_IS_OP(op, cls) \
  if (op_type == #op) return true;
  TUNECTL_ONNX_OPS(TUNECTL_IS_OP)
#undef TUNECTL_IS_OP
  return false;
}

OpClass op_class(const Node& node) {
  // Antialiased downscaling reduces over its taps (ops::resize): a kernel of its own.
  if (node.op_type == "Resize" && node.attrs.get_int(node, "antialias", 0) != 0) return OpClass::Anchor;
#define TUNECTL_OP_CLASS(op, cls) \
  if (node.op_type == #op) return OpClass::cls;
  TUNECTL_ONNX_OPS(TUNECTL_OP_CLASS)
  TUNECTL_INTERNAL_OPS(TUNECTL_OP_CLASS)
#undef TUNECTL_OP_CLASS
  user_fail(node.describe(), ": unsupported operator '", node.op_type, "'");
}

std::vector<int64_t> te_shape(const std::vector<int64_t>& onnx_shape) {
  if (onnx_shape.empty()) return {1};
  return onnx_shape;
}

namespace {

// Float16 is stored, not computed: a node reads its float16 inputs as
// float32, and each output the graph types float16 is rounded back (one
// cast each way, which fusion inlines), so every operator computes in
// float32 and a float16 model rounds where ONNX's would.
std::vector<te::Tensor> widened_float16(const NodeContext& c, const std::vector<te::Tensor>& inputs) {
  std::vector<te::Tensor> out = inputs;
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] && out[i]->dtype() == ir::DType::Float16)
      out[i] = ops::cast(out[i], ir::DType::Float32, c.out_name() + "_in" + std::to_string(i) + "_f32");
  return out;
}

bool stored_as_float16(const Graph& graph, const std::string& value) {
  auto v = graph.values.find(value);
  return v != graph.values.end() && v->second.dtype == ir::DType::Float16;
}

}  // namespace

std::vector<te::Tensor> convert_node(const Node& node, const std::vector<te::Tensor>& raw_inputs, const Graph& graph,
                                     const std::vector<std::string>& graph_outputs) {
  auto it = converters().find(node.op_type);
  user_check(it != converters().end(), node.describe(), ": unsupported operator '", node.op_type, "'");
  const std::vector<te::Tensor> inputs = widened_float16(NodeContext(node, raw_inputs, graph), raw_inputs);
  // The converter names a float16 output's float32 form "<output>_f32".
  const std::vector<std::string>& values = graph_outputs.empty() ? node.outputs : graph_outputs;
  internal_check(values.size() == node.outputs.size(), node.describe(), ": ", values.size(), " graph values for ",
                 node.outputs.size(), " outputs");
  Node widened = node;
  for (size_t k = 0; k < values.size(); ++k)
    if (stored_as_float16(graph, values[k])) widened.outputs[k] += "_f32";
  NodeContext ctx(widened, inputs, graph);
  std::vector<te::Tensor> outs;
  try {
    outs = it->second(ctx);
    for (size_t k = 0; k < outs.size() && k < node.outputs.size(); ++k) {
      if (!stored_as_float16(graph, values[k])) continue;
      // Cast to float16 makes it itself, under the float32 form's name.
      outs[k] = outs[k]->dtype() == ir::DType::Float16 ? ops::copy(outs[k], node.outputs[k])
                                                       : ops::cast(outs[k], ir::DType::Float16, node.outputs[k]);
    }
  } catch (const UserError& e) {
    // ops/ errors name the op function only; say which node it was.
    std::string prefix = node.describe();
    std::string msg = e.what();
    if (msg.rfind(prefix, 0) == 0) throw;
    throw UserError(prefix + ": " + msg);
  }
  internal_check(outs.size() <= node.outputs.size(), node.describe(), ": converter made ", outs.size(),
                 " outputs for ", node.outputs.size());
  // Optional trailing outputs the converter does not produce must be unused.
  for (size_t k = outs.size(); k < node.outputs.size(); ++k) {
    const std::string& name = node.outputs[k];
    bool used = !name.empty() && (!graph.consumers(name).empty() ||
                                  std::find(graph.outputs.begin(), graph.outputs.end(), name) != graph.outputs.end());
    user_check(!used, node.describe(), ": output ", k, " ('", name, "') is not supported");
  }
  return outs;
}

void fail_shape_input(const std::string& what, const std::string& value, std::vector<std::string> from) {
  std::string source = from == std::vector<std::string>{value} ? "it is the model input " : "it is computed from the model inputs ";
  std::string binds;
  for (size_t k = 0; k < from.size(); ++k) {
    source += (k ? ", '" : "'") + from[k] + "'";
    binds += (k ? " " : "") + ("--bind " + from[k] + "=V1,V2,...");
  }
  throw ShapeInputError(what + " must be known when compiling; " + source + ": give its value with " + binds +
                            " (run also takes it from --input NAME=FILE.pb)",
                        std::move(from));
}

// ---- NodeContext ------------------------------------------------------------

const te::Tensor& NodeContext::in(size_t i) const {
  check(has(i), "input ", i, " is missing");
  return inputs_[i];
}

std::vector<int64_t> NodeContext::shape(size_t i) const {
  const te::Tensor& t = in(i);
  auto v = i < node.inputs.size() ? graph.values.find(node.inputs[i]) : graph.values.end();
  if (v != graph.values.end() && v->second.shape_known && v->second.shape.empty()) {
    internal_check(t->shape() == std::vector<int64_t>{1}, node.describe(), ": scalar input ", i,
                   " is held with shape of rank ", t->shape().size());
    return {};
  }
  return t->shape();
}

const runtime::NDArray& NodeContext::constant(size_t i, const std::string& what) const {
  check(i < node.inputs.size() && !node.inputs[i].empty(), "input ", i, " (", what, ") is missing");
  auto it = graph.constants.find(node.inputs[i]);
  if (it != graph.constants.end()) return it->second;
  std::vector<std::string> from = graph.upstream_inputs(node.inputs[i]);
  check(!from.empty(), "input ", i, " ('", node.inputs[i], "', ", what, ") must be a constant known at compile time");
  fail_shape_input(detail::concat(node.describe(), ": input ", i, " ('", node.inputs[i], "', ", what, ")"),
                   node.inputs[i], std::move(from));
}

std::vector<int64_t> NodeContext::const_ints(size_t i, const std::string& what) const {
  const runtime::NDArray& a = constant(i, what);
  check(ir::is_int(a.dtype()), "input ", i, " ('", node.inputs[i], "', ", what, ") must be integers, not ",
        ir::to_string(a.dtype()));
  return array_ints(a);
}

double NodeContext::const_scalar(size_t i, const std::string& what) const {
  const runtime::NDArray& a = constant(i, what);
  check(a.num_elements() == 1, "input ", i, " ('", node.inputs[i], "', ", what, ") must hold one value, it has ",
        a.num_elements());
  return a.get(0);
}

void NodeContext::reject_attr(const std::string& name, const std::string& why) const {
  check(!has_attr(name), "attribute '", name, "' is not supported (", why, ")");
}

std::string NodeContext::out_name(size_t k) const {
  if (k < node.outputs.size() && !node.outputs[k].empty()) return node.outputs[k];
  // Named after the first output, not the node, so that the partitioner's
  // positional output names make every tensor name positional.
  for (const std::string& first : node.outputs)
    if (!first.empty()) return first + "_out" + std::to_string(k);
  return node.name + "_out" + std::to_string(k);
}

std::vector<int64_t> array_ints(const runtime::NDArray& a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (a.dtype() == ir::DType::Int64) {
      out.push_back(a.data<int64_t>()[i]);
    } else {
      out.push_back(static_cast<int64_t>(a.get(i)));
    }
  }
  return out;
}

ir::DType dtype_from_onnx(int64_t code, const NodeContext& ctx) {
  std::optional<ir::DType> t = dtype_from_onnx_code(code);
  ctx.check(t.has_value(), "data type ", code, " is not supported (", kSupportedOnnxTypes, " are)");
  return *t;
}

}  // namespace tunectl::graph
