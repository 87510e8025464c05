#include "graph/onnx_opset_compat.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <onnx/defs/schema.h>

#include "graph/onnx_dtype.h"
#include "graph/onnx_util.h"
#include "ir/error.h"

namespace tunectl::graph {

namespace {

// Reductions whose axes moved from an attribute to an optional input in
// opset 18 (ReduceSum did so in opset 13, which the library knows).
const std::set<std::string> kReduceAxesInput18 = {"ReduceMean",      "ReduceMax",  "ReduceMin",
                                                   "ReduceProd",      "ReduceL1",   "ReduceL2",
                                                   "ReduceLogSum",    "ReduceLogSumExp", "ReduceSumSquare"};

// Operators newer than the library whose output shape is not their first
// input's (cropped, broadcast, a grid, an image): left to tunectl's own
// inference.
const std::set<std::string> kNewerOpsOfOtherShapes = {"CenterCropPad", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                                                      "AffineGrid", "Col2Im", "DeformConv"};

// Constant tensors by value name: initializers and Constant outputs.
std::map<std::string, onnx::TensorProto> constant_tensors(const onnx::GraphProto& graph) {
  std::map<std::string, onnx::TensorProto> result;
  for (const auto& init : graph.initializer()) result[init.name()] = init;
  for (const auto& node : graph.node()) {
    if (node.op_type() != "Constant" || node.output_size() != 1) continue;
    for (const auto& attr : node.attribute()) {
      onnx::TensorProto t;
      if (attr.name() == "value" && attr.has_t()) {
        t = attr.t();
      } else if (attr.name() == "value_ints") {
        t.set_data_type(onnx::TensorProto::INT64);
        t.add_dims(attr.ints_size());
        *t.mutable_int64_data() = attr.ints();
      } else if (attr.name() == "value_int") {
        t.set_data_type(onnx::TensorProto::INT64);
        t.add_int64_data(attr.i());
      } else {
        continue;
      }
      result[node.output(0)] = t;
    }
  }
  return result;
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& attr : node.attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

void remove_attribute(onnx::NodeProto& node, const std::string& name) {
  auto* attrs = node.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i) {
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
  }
}

// ReduceX(data, axes) -> ReduceX(data) {axes}; with no axes and
// noop_with_empty_axes=1 the node is an identity. False when the axes are not
// constant, so no opset-17 node expresses it.
bool downgrade_reduce(onnx::NodeProto& node, int index,
                      const std::map<std::string, onnx::TensorProto>& constants) {
  bool has_axes = node.input_size() > 1 && !node.input(1).empty();
  auto axes_it = has_axes ? constants.find(node.input(1)) : constants.end();
  if (has_axes && axes_it == constants.end()) return false;
  bool noop_with_empty_axes = false;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "noop_with_empty_axes") noop_with_empty_axes = attr.i() != 0;
  }
  remove_attribute(node, "noop_with_empty_axes");
  if (has_axes) {
    runtime::NDArray axes = tensor_from_proto(axes_it->second, "axes of " + describe_onnx_node(node, index));
    onnx::AttributeProto* attr = node.add_attribute();
    attr->set_name("axes");
    attr->set_type(onnx::AttributeProto::INTS);
    for (int64_t i = 0; i < axes.num_elements(); ++i) attr->add_ints(static_cast<int64_t>(axes.get(i)));
  } else if (noop_with_empty_axes) {
    node.set_op_type("Identity");
    node.clear_attribute();
  }
  node.mutable_input()->DeleteSubrange(1, node.input_size() - 1);
  return true;
}

// Element types newer than the library (float8 from opset 19, 4-bit
// integers from opset 21): named here, since its protobuf cannot, and
// refused before its checker rejects them as invalid.
std::string newer_type_name(int64_t code) {
  static const std::map<int64_t, std::string> names = {{17, "FLOAT8E4M3FN"}, {18, "FLOAT8E4M3FNUZ"},
                                                        {19, "FLOAT8E5M2"},   {20, "FLOAT8E5M2FNUZ"},
                                                        {21, "UINT4"},        {22, "INT4"}};
  auto it = names.find(code);
  return it != names.end() ? it->second : "#" + std::to_string(code);
}

void check_known_type(int64_t code, const std::string& what) {
  user_check(code <= onnx::TensorProto::DataType_MAX, what, " has element type ", newer_type_name(code),
             "; tunectl supports ", kSupportedOnnxTypes);
}

void check_known_types(const onnx::GraphProto& graph) {
  auto check_values = [](const auto& values, const std::string& kind) {
    for (const auto& v : values) {
      if (v.type().has_tensor_type())
        check_known_type(v.type().tensor_type().elem_type(), kind + " '" + v.name() + "'");
    }
  };
  check_values(graph.input(), "input");
  check_values(graph.output(), "output");
  check_values(graph.value_info(), "value");
  for (const auto& init : graph.initializer()) check_known_type(init.data_type(), "initializer '" + init.name() + "'");
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    for (const auto& attr : node.attribute()) {
      if (node.op_type() == "Cast" && attr.name() == "to")
        check_known_type(attr.i(), describe_onnx_node(node, i) + ": attribute 'to'");
      if (attr.has_t())
        check_known_type(attr.t().data_type(), describe_onnx_node(node, i) + ": attribute '" + attr.name() + "'");
    }
  }
}

// The element type of a value the graph declares (an input) or holds (a
// constant), or 0 (UNDEFINED).
int declared_elem_type(const std::string& name, const onnx::GraphProto& graph,
                       const std::map<std::string, onnx::TensorProto>& constants) {
  if (auto it = constants.find(name); it != constants.end()) return it->second.data_type();
  for (const auto& in : graph.input())
    if (in.name() == name) return in.type().tensor_type().elem_type();
  return 0;
}

// Whether the node's first input is an optional: false when it is omitted
// or a graph input of another type (opset 18's forms), true otherwise (a
// value inference has yet to type).
bool reads_optional(const onnx::NodeProto& node, const onnx::GraphProto& graph) {
  if (node.input_size() == 0 || node.input(0).empty()) return false;
  for (const auto& in : graph.input())
    if (in.name() == node.input(0)) return in.type().has_optional_type();
  return true;
}

// Turns the node into Cast(input 0, to): what inference needs of an
// operator whose output has its first input's shape and the type `to`.
void make_cast(onnx::NodeProto& node, int to) {
  const std::string data = node.input(0);
  node.clear_input();
  node.clear_attribute();
  node.set_op_type("Cast");
  node.add_input(data);
  onnx::AttributeProto* attr = node.add_attribute();
  attr->set_name("to");
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(to);
}

constexpr const char* kUnknownShape = "__tunectl_unknown_shape";

// Turns the node into Reshape(data, <a graph input of unknown length>), one
// per output: each output keeps the data's element type, and inference can
// say nothing about its shape, which is exactly what is known before
// constant folding.
void make_opaque(onnx::NodeProto& node, onnx::GraphProto& graph) {
  user_check(node.input_size() > 0 && node.output_size() > 0, "node '", node.name(), "' (", node.op_type(),
             ") has no ", node.input_size() == 0 ? "inputs" : "outputs");
  const std::string data = node.input(0);
  const std::vector<std::string> outputs(node.output().begin(), node.output().end());
  const auto reshape = [&](onnx::NodeProto& n, const std::string& output) {
    n.clear_input();
    n.clear_attribute();
    n.clear_output();
    n.set_op_type("Reshape");
    n.add_input(data);
    n.add_input(kUnknownShape);
    n.add_output(output);
  };
  reshape(node, outputs.at(0));
  // A node of several outputs (Split): one more Reshape per output, right
  // after it, so that the nodes stay in topological order.
  int at = 0;
  while (&graph.node(at) != &node) ++at;
  for (size_t k = 1; k < outputs.size(); ++k) {
    reshape(*graph.add_node(), outputs[k]);
    for (int j = graph.node_size() - 1; j > at + static_cast<int>(k); --j) graph.mutable_node()->SwapElements(j, j - 1);
  }
  for (const auto& in : graph.input()) {
    if (in.name() == kUnknownShape) return;
  }
  onnx::ValueInfoProto* in = graph.add_input();
  in->set_name(kUnknownShape);
  auto* type = in->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::INT64);
  type->mutable_shape()->add_dim();
}

}  // namespace

const std::map<std::string, int>& ops_newer_than_library() {
  static const std::map<std::string, int> ops = {
      {"Mish", 18},       {"GroupNormalization", 18}, {"CenterCropPad", 18}, {"BitwiseAnd", 18},
      {"BitwiseOr", 18},  {"BitwiseXor", 18},         {"BitwiseNot", 18},    {"Gelu", 20},
      {"AffineGrid", 20}, {"Col2Im", 18},         {"DeformConv", 19}};
  return ops;
}

int onnx_library_max_opset() {
  return onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
}

void check_legacy_opset(const onnx::GraphProto& graph, int opset) {
  if (opset >= 7) return;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (node.op_type() != "BatchNormalization" && node.op_type() != "Dropout") continue;
    // Before opset 7, is_test = 0 (the default) selects training: batch
    // statistics for BatchNormalization, a random mask for Dropout.
    const onnx::AttributeProto* is_test = find_attribute(node, "is_test");
    user_check(is_test != nullptr && is_test->i() != 0, describe_onnx_node(node, i), ": attribute 'is_test' = ",
               is_test ? std::to_string(is_test->i()) : "0 (the default)", " asks opset ", opset,
               " for training mode; only inference (is_test = 1) is supported");
  }
}

void downgrade_to_library_opset(onnx::ModelProto& model, int opset) {
  // The checker refuses IR versions newer than its own; the IR additions
  // since (new element types, ...) concern nothing tunectl accepts.
  if (model.ir_version() > onnx::IR_VERSION) model.set_ir_version(onnx::IR_VERSION);
  // The library's pooling inference, at every opset, keeps a last ceil-mode
  // window that starts in the end padding (ONNX 1.16 fixed it); tunectl's
  // pooling drops it, so such a shape is left to the converter.
  onnx::GraphProto* nodes = model.mutable_graph();
  for (int i = 0; i < nodes->node_size(); ++i) {
    onnx::NodeProto& node = *nodes->mutable_node(i);
    const bool pool = node.op_type() == "MaxPool" || node.op_type() == "AveragePool" || node.op_type() == "LpPool";
    const onnx::AttributeProto* ceil_mode = find_attribute(node, "ceil_mode");
    if (pool && ceil_mode && ceil_mode->i() != 0 && node.output_size() == 1) make_opaque(node, *nodes);
  }
  int library_max = onnx_library_max_opset();
  if (opset <= library_max) return;
  internal_check(opset >= 18 && opset <= 21 && library_max == 17, "no rewrite from opset ", opset, " to ",
                 library_max);
  for (auto& import : *model.mutable_opset_import()) {
    if (import.domain().empty() || import.domain() == "ai.onnx") import.set_version(library_max);
  }
  check_known_types(model.graph());
  auto constants = constant_tensors(model.graph());
  onnx::GraphProto* graph = model.mutable_graph();
  for (int i = 0; i < graph->node_size(); ++i) {
    onnx::NodeProto& node = *graph->mutable_node(i);
    const std::string what = describe_onnx_node(node, i);
    if (kReduceAxesInput18.count(node.op_type())) {
      // Axes computed at run time: the Graph's value gets shape_known = false.
      if (!downgrade_reduce(node, i, constants)) make_opaque(node, *graph);
    } else if (node.op_type() == "Split") {
      // num_outputs may leave a smaller last part, which Split-13's
      // inference refuses: the shapes are left to tunectl's converter.
      if (find_attribute(node, "num_outputs")) {
        make_opaque(node, *graph);
        continue;
      }
    } else if (node.op_type() == "Pad") {
      // Opset 18's axes input: the output shape is left to constant folding.
      if (node.input_size() > 3 && !node.input(3).empty()) {
        make_opaque(node, *graph);
        continue;
      }
      // Opset 19's wrap pads to the same shape as constant padding.
      for (auto& attr : *node.mutable_attribute())
        if (attr.name() == "mode" && attr.s() == "wrap") attr.set_s("constant");
    } else if (node.op_type() == "AveragePool" || node.op_type() == "LpPool") {
      // Opset 19's dilations: all 1 is AveragePool-11's window; others leave
      // the output shape to tunectl's own shape inference.
      if (const onnx::AttributeProto* dilations = find_attribute(node, "dilations")) {
        const auto& d = dilations->ints();
        if (std::any_of(d.begin(), d.end(), [](int64_t v) { return v != 1; })) {
          make_opaque(node, *graph);
          continue;
        }
        remove_attribute(node, "dilations");
      }
    } else if (node.op_type() == "Resize") {
      // Opset 18's axes and keep_aspect_ratio_policy: the output shape is
      // left to tunectl's converter, which reads them.
      if (find_attribute(node, "axes") || find_attribute(node, "keep_aspect_ratio_policy")) {
        make_opaque(node, *graph);
        continue;
      }
      remove_attribute(node, "antialias");  // the same shape; the converter reads it
    } else if (node.op_type() == "QuantizeLinear" || node.op_type() == "DequantizeLinear") {
      // Opsets 19-21's 16-bit types, output_dtype and block_size have no
      // schema in the library; the output has x's shape and the zero
      // point's (output_dtype's, uint8) or the scale's type.
      int to = 0;
      if (node.op_type() == "DequantizeLinear") {
        to = declared_elem_type(node.input(1), *graph, constants);
      } else if (const onnx::AttributeProto* dtype = find_attribute(node, "output_dtype"); dtype && dtype->i() != 0) {
        to = static_cast<int>(dtype->i());
      } else {
        to = node.input_size() > 2 && !node.input(2).empty() ? declared_elem_type(node.input(2), *graph, constants)
                                                             : onnx::TensorProto::UINT8;
      }
      if (to != 0) make_cast(node, to);
    } else if (node.op_type() == "DFT") {
      // Opset 20 moved the axis into an input, which DFT-17's schema refuses;
      // the converter reads it and infers the shape.
      if (node.input_size() > 2) make_opaque(node, *graph);
    } else if (node.op_type() == "GridSample") {
      // Opset 20's volumetric grids and renamed modes: the shape is left to tunectl.
      make_opaque(node, *graph);
    } else if (node.op_type() == "Cast") {
      // Opset 19's saturate only concerns casts to float8 types, which
      // check_known_types refused above: a no-op for every other cast.
      remove_attribute(node, "saturate");
    } else if ((node.op_type() == "OptionalHasElement" || node.op_type() == "OptionalGetElement") &&
               !reads_optional(node, *graph)) {
      // Opset 18 lets them take a tensor or a sequence (or, OptionalHasElement,
      // nothing); the library's schemas want an optional. In the copy: a
      // bool scalar and a forward of the input, their types and shapes.
      if (node.op_type() == "OptionalGetElement") {
        node.set_op_type("Identity");
        continue;
      }
      node.clear_input();
      node.set_op_type("Constant");
      onnx::AttributeProto* value = node.add_attribute();
      value->set_name("value");
      value->set_type(onnx::AttributeProto::TENSOR);
      value->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
      value->mutable_t()->add_int32_data(0);
    } else if (kNewerOpsOfOtherShapes.count(node.op_type())) {
      make_opaque(node, *graph);
    } else if (ops_newer_than_library().count(node.op_type())) {
      // No schema in the library; the output has the input's type and shape,
      // as Identity's.
      node.set_op_type("Identity");
      node.clear_attribute();
      node.mutable_input()->DeleteSubrange(1, node.input_size() - 1);
    }
  }
}

}  // namespace tunectl::graph
