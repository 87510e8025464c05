// What the ONNX operator converters (convert_*.cpp) share: a NodeContext
// giving one node's input tensors, compile-time constant inputs and
// attributes with errors that name the node, and the table the converters
// register themselves in. Private to lib/graph's convert_*.cpp files;
// everything else goes through convert.h.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/convert.h"
#include "ir/error.h"

namespace tunectl::graph {

class NodeContext {
 public:
  NodeContext(const Node& node, const std::vector<te::Tensor>& inputs, const Graph& graph)
      : node(node), graph(graph), inputs_(inputs) {}

  const Node& node;
  const Graph& graph;
  int64_t opset() const { return graph.opset; }

  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    user_fail(node.describe(), ": ", args...);
  }
  template <typename... Args>
  void check(bool cond, const Args&... args) const {
    if (!cond) fail(args...);
  }

  // Input i was given (not omitted, not past the end).
  bool has(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  size_t num_inputs() const { return inputs_.size(); }
  // Input i; a UserError when it is omitted.
  const te::Tensor& in(size_t i) const;
  // Input i or null when omitted.
  te::Tensor opt(size_t i) const { return has(i) ? inputs_[i] : nullptr; }
  // The ONNX shape of input i: that of the graph's value info when it has
  // one (rank 0 there is a scalar, held as a tensor of shape [1]), else the
  // tensor's.
  std::vector<int64_t> shape(size_t i) const;
  bool is_scalar(size_t i) const { return shape(i).empty(); }

  // Input i as a compile-time constant: `what` says what the op needs it
  // for. A UserError naming the node, op type and input when it is not one.
  const runtime::NDArray& constant(size_t i, const std::string& what) const;
  std::vector<int64_t> const_ints(size_t i, const std::string& what) const;
  double const_scalar(size_t i, const std::string& what) const;

  int64_t attr_int(const std::string& name, int64_t fallback) const {
    return node.attrs.get_int(node, name, fallback);
  }
  double attr_float(const std::string& name, double fallback) const {
    return node.attrs.get_float(node, name, fallback);
  }
  std::string attr_string(const std::string& name, const std::string& fallback) const {
    return node.attrs.get_string(node, name, fallback);
  }
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
    return node.attrs.get_ints(node, name, std::move(fallback));
  }
  bool has_attr(const std::string& name) const { return node.attrs.has(name); }
  // A UserError naming the attribute when the node sets it at all.
  void reject_attr(const std::string& name, const std::string& why) const;

  // Name for output k's tensor (and, with a suffix, for helper stages).
  std::string out_name(size_t k = 0) const;

 private:
  const std::vector<te::Tensor>& inputs_;
};

// Integer values of an array (any integer or float dtype).
std::vector<int64_t> array_ints(const runtime::NDArray& a);
// ONNX TensorProto data type code -> DType; UserError for unsupported ones.
ir::DType dtype_from_onnx(int64_t code, const NodeContext& ctx);

using Converter = std::function<std::vector<te::Tensor>(const NodeContext&)>;
using ConverterTable = std::map<std::string, Converter>;

// Each convert_*.cpp registers its operators.
void add_nn_converters(ConverterTable& table);
void add_elemwise_converters(ConverterTable& table);
void add_shape_converters(ConverterTable& table);
void add_resize_converters(ConverterTable& table);
void add_scatter_converters(ConverterTable& table);
void add_loss_converters(ConverterTable& table);
void add_rnn_converters(ConverterTable& table);
void add_quantize_converters(ConverterTable& table);

}  // namespace tunectl::graph
