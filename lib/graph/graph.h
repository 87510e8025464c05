// Graph: an imported ONNX model as tunectl holds it, free of protobuf. Every
// value has a static shape and dtype; constants (initializers, Constant nodes
// and whatever the passes fold) live beside the nodes. graph::import makes
// one, graph passes rewrite it, graph::partition cuts it into subgraphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "runtime/ndarray.h"

namespace tunectl::graph {

// One attribute value of a node, converted out of protobuf.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>, runtime::NDArray>;

struct Node;

// A node's attributes with typed, checked access: a missing required
// attribute or one of the wrong type is a UserError naming the node.
class Attributes {
 public:
  std::map<std::string, AttrValue> values;

  bool has(const std::string& name) const { return values.count(name) > 0; }
  int64_t get_int(const Node& node, const std::string& name) const;
  int64_t get_int(const Node& node, const std::string& name, int64_t fallback) const;
  double get_float(const Node& node, const std::string& name, double fallback) const;
  std::string get_string(const Node& node, const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const Node& node, const std::string& name) const;
  std::vector<int64_t> get_ints(const Node& node, const std::string& name, std::vector<int64_t> fallback) const;
  const runtime::NDArray& get_tensor(const Node& node, const std::string& name) const;
};

struct Node {
  std::string name;  // the ONNX name, or "<op_type>_<index>" when the model gives none
  std::string op_type;
  std::vector<std::string> inputs;  // value names; "" for an omitted optional input
  std::vector<std::string> outputs;
  Attributes attrs;

  // "node 'conv1' (Conv)", for error messages.
  std::string describe() const;
};

// What a value is: a tensor, or one of ONNX's containers of tensors, which
// tunectl resolves at compile time (pass_composites.cpp): a sequence of a
// known length, an optional known to be present or empty.
enum class ValueKind : uint8_t { Tensor, Sequence, OptionalTensor, OptionalSequence };

struct ValueInfo {
  ir::DType dtype = ir::DType::Float32;  // a container's: that of its tensors
  std::vector<int64_t> shape;  // static; rank 0 is a scalar
  // False when ONNX shape inference left the shape unknown or symbolic (the
  // shape arithmetic of PyTorch exports only becomes static once constant
  // folding has run); shape is then empty and the passes fill it in.
  bool shape_known = true;
  ValueKind kind = ValueKind::Tensor;
};

// A sequence or optional value resolved at compile time: the tensor values
// it holds, in order (an optional tensor: one when present; an optional
// sequence: the sequence's, when present).
struct Composite {
  ValueKind kind = ValueKind::Sequence;
  ir::DType dtype = ir::DType::Float32;  // of its tensors (an empty one has none to tell)
  bool present = true;                   // an optional's
  std::vector<std::string> elements;
};

// The value of a sequence or optional input or output: its tensors.
struct CompositeValue {
  ValueKind kind = ValueKind::Sequence;
  ir::DType dtype = ir::DType::Float32;  // of its tensors (an empty one has none to tell)
  bool present = true;                   // an optional's
  std::vector<runtime::NDArray> elements;
};

// "a sequence", "an optional tensor", ... for messages.
std::string describe(ValueKind kind);

// The bytes of a tensor value of that static shape.
size_t value_bytes(const ValueInfo& info);

// An output container's value, from the tensors the model computed.
CompositeValue composite_value(const Composite& layout, const std::map<std::string, runtime::NDArray>& tensors);
// Whether two containers are alike: kind, presence, number of tensors, and
// each tensor all_close; the message names the first difference.
runtime::CompareResult compare_composites(const CompositeValue& actual, const CompositeValue& expected, double rtol,
                                          double atol);

struct Graph {
  int64_t opset = 0;  // of the default ONNX domain
  std::vector<Node> nodes;  // topological order
  std::map<std::string, ValueInfo> values;  // every value: inputs, constants, node outputs
  std::map<std::string, runtime::NDArray> constants;  // initializers, Constant nodes, folded values
  std::vector<std::string> inputs;   // graph inputs that are not constants, in model order
  std::vector<std::string> outputs;  // in model order; a sequence or optional output by its elements
  // The outputs that are sequences or optionals, each with the names of its
  // tensors (in `outputs`), and the model's outputs as it declares them (a
  // container named once; import sets it): what `run` writes and compares.
  std::map<std::string, Composite> composite_outputs;
  std::vector<std::string> declared_outputs;
  const std::vector<std::string>& model_outputs() const { return declared_outputs.empty() ? outputs : declared_outputs; }

  bool is_constant(const std::string& value) const { return constants.count(value) > 0; }
  const ValueInfo& info(const std::string& value) const;  // InternalError if unknown
  // Index of the node producing value, or -1 (graph input or constant).
  int producer(const std::string& value) const;
  // Indices of the nodes reading value.
  std::vector<int> consumers(const std::string& value) const;
  // The graph inputs that value is computed from (itself when it is one), in
  // the order of `inputs`.
  std::vector<std::string> upstream_inputs(const std::string& value) const;
  bool is_output(const std::string& value) const;
  // A value name derived from base that no value or constant of the graph has.
  std::string fresh_name(const std::string& base) const;
  // Drops the nodes whose flag is set (one flag per node), keeping the order.
  void remove_nodes(const std::vector<bool>& removed);
};

}  // namespace tunectl::graph
