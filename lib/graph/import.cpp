#include "graph/import.h"

#include <climits>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#include <spdlog/spdlog.h>

#include "graph/convert.h"
#include "graph/onnx_external_data.h"
#include "graph/onnx_isolated.h"
#include "graph/onnx_opset_compat.h"
#include "graph/onnx_util.h"
#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

namespace fs = std::filesystem;

namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string supported_ops_list() {
  std::string list;
#define TUNECTL_LIST_OP(op, cls) list += (list.empty() ? "" : ", ") + std::string(#op);
  TUNECTL_ONNX_OPS(TUNECTL_LIST_OP)
#undef TUNECTL_LIST_OP
  return list;
}

onnx::ModelProto parse_model(const std::string& bytes, const std::string& path) {
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX)));
  // protobuf's default limit is far below large models; 2 GiB is the format's own.
  stream.SetTotalBytesLimit(INT_MAX);
  bool ok = model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
  user_check(ok, "'", path, "' is not a valid ONNX model: protobuf parsing failed (truncated or corrupt file)");
  // Random bytes can parse "successfully" into unknown fields; a real model
  // has an IR version, a graph, nodes and outputs.
  user_check(model.ir_version() > 0, "'", path, "' is not a valid ONNX model: no ir_version");
  user_check(model.has_graph(), "'", path, "' is not a valid ONNX model: no graph");
  user_check(model.graph().node_size() > 0, "'", path, "' is not a valid ONNX model: the graph has no nodes");
  user_check(model.graph().output_size() > 0, "'", path, "' is not a valid ONNX model: the graph has no outputs");
  return model;
}

int default_opset(const onnx::ModelProto& model, const std::string& path) {
  for (const auto& import : model.opset_import()) {
    if (!is_default_domain(import.domain())) continue;
    int64_t v = import.version();
    user_check(v >= 1 && v <= kMaxOpset, "'", path, "' uses ONNX opset ", v, "; tunectl supports opsets ",
               kMinOpset, " to ", kMaxOpset, " (older ones converted)");
    return static_cast<int>(v);
  }
  user_fail("'", path, "' is not a valid ONNX model: no opset_import for the default ONNX domain");
}

// A model of an opset older than tunectl's, upgraded to kMinOpset by ONNX's
// own version converter (the adapters of every operator change since); it
// says so on the log.
// Every graph output is a graph input, an initializer or a node's output.
// Checked first: ONNX's checker lets such a model through, and its version
// converter crashed on one (fuzzing found it).
// The static dimensions a tensor type declares ("?" for a symbolic one),
// or nothing when it declares no shape.
std::optional<std::vector<std::string>> declared_dims(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  std::vector<std::string> dims;
  for (const auto& d : type.tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : "?");
  return dims;
}

// Whether two declarations of one value disagree: element types both given
// and different, or shapes both given and different where both are static.
bool declarations_disagree(const onnx::TypeProto& a, const onnx::TypeProto& b) {
  const int ta = a.has_tensor_type() ? a.tensor_type().elem_type() : 0, tb = b.has_tensor_type() ? b.tensor_type().elem_type() : 0;
  if (ta != 0 && tb != 0 && ta != tb) return true;
  const auto da = declared_dims(a), db = declared_dims(b);
  if (!da || !db) return false;
  if (da->size() != db->size()) return true;
  for (size_t i = 0; i < da->size(); ++i)
    if ((*da)[i] != "?" && (*db)[i] != "?" && (*da)[i] != (*db)[i]) return true;
  return false;
}

void check_outputs_produced(const onnx::GraphProto& graph) {
  std::set<std::string> defined;
  std::map<std::string, const onnx::TypeProto*> input_types;
  for (const auto& in : graph.input()) {
    defined.insert(in.name());
    input_types[in.name()] = &in.type();
  }
  for (const auto& init : graph.initializer()) defined.insert(init.name());
  for (const auto& node : graph.node()) defined.insert(node.output().begin(), node.output().end());
  for (const auto& out : graph.output()) {
    user_check(defined.count(out.name()), "graph output '", out.name(), "' is not produced by any node");
    // ONNX's shape inference reads such a value by one declaration, tunectl by the other.
    auto in = input_types.find(out.name());
    user_check(in == input_types.end() || !declarations_disagree(*in->second, out.type()), "'", out.name(),
               "' is both a graph input and a graph output, declared with different types or shapes");
  }
}

void upgrade_old_opset(onnx::ModelProto& model, int& opset, const std::string& path) {
  if (opset >= kMinOpset) return;
  const int from = opset;
  model = run_isolated("version converter", path, model, [&](const onnx::ModelProto& m) {
    // The converter trusts its input: ONNX's checker goes first.
    try {
      onnx::checker::check_model(m);
    } catch (const std::exception& e) {
      user_fail("'", path, "' is not a valid ONNX model: ", e.what());
    }
    try {
      return onnx::version_conversion::ConvertVersion(m, kMinOpset);
    } catch (const std::exception& e) {
      user_fail("'", path, "' uses ONNX opset ", from, ", which ONNX's version converter cannot bring to opset ",
                kMinOpset, ": ", e.what());
    }
  });
  spdlog::info("'{}' uses ONNX opset {}: converted to opset {} with ONNX's version converter", path, opset, kMinOpset);
  opset = kMinOpset;
}

bool is_supported_attribute_type(onnx::AttributeProto::AttributeType type) {
  switch (type) {
    case onnx::AttributeProto::UNDEFINED:  // IR 1-2 models; the set field tells (node_from_proto)
    case onnx::AttributeProto::INT:
    case onnx::AttributeProto::FLOAT:
    case onnx::AttributeProto::STRING:
    case onnx::AttributeProto::INTS:
    case onnx::AttributeProto::FLOATS:
    case onnx::AttributeProto::STRINGS:
    case onnx::AttributeProto::TENSOR: return true;
    default: return false;
  }
}

// Every node must be a supported operator of the default domain with
// attributes tunectl can hold; checked before ONNX's checker and shape
// inference so that the message says what tunectl supports.
void check_operators(const onnx::GraphProto& graph) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    user_check(is_default_domain(node.domain()), describe_onnx_node(node, i), ": operator domain '", node.domain(),
               "' is not supported (only the default ONNX domain)");
    user_check(is_supported_op(node.op_type()), describe_onnx_node(node, i), ": unsupported operator ",
               node.op_type(), " (supported: ", supported_ops_list(), ")");
    for (const auto& attr : node.attribute()) {
      user_check(is_supported_attribute_type(attr.type()), describe_onnx_node(node, i), ": attribute '", attr.name(),
                 "' has type ", onnx::AttributeProto::AttributeType_Name(attr.type()),
                 ", which tunectl does not support");
    }
  }
}

std::set<std::string> initializer_names(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& init : graph.initializer()) names.insert(init.name());
  return names;
}

// Writes --input-shape values into the graph inputs' types, so that shape
// inference starts from static shapes.
void pin_input_shapes(onnx::GraphProto& graph, const ImportOptions& options) {
  std::set<std::string> inits = initializer_names(graph);
  std::map<std::string, onnx::ValueInfoProto*> inputs;
  std::string names;
  for (auto& in : *graph.mutable_input()) {
    if (inits.count(in.name())) continue;
    inputs[in.name()] = &in;
    names += (names.empty() ? "" : ", ") + in.name();
  }
  std::map<std::string, std::vector<int64_t>> shapes = options.input_shapes;
  for (const auto& [name, values] : options.bindings) {
    auto it = inputs.find(name);
    user_check(it != inputs.end(), "--bind names '", name, "', which is not an input of the model (inputs: ", names,
               ")");
    const auto& tensor = it->second->type().tensor_type();
    if (!shapes.count(name) && tensor.shape().dim_size() == 1 && !tensor.shape().dim(0).has_dim_value())
      shapes[name] = {static_cast<int64_t>(values.size())};
  }
  for (const auto& [name, shape] : options.value_shapes) {
    auto it = inputs.find(name);
    if (it == inputs.end() || shapes.count(name) || !it->second->type().has_tensor_type()) continue;
    const auto& tensor = it->second->type().tensor_type();
    if (!tensor.has_shape()) {
      shapes[name] = shape;
      continue;
    }
    bool symbolic = false, agrees = tensor.shape().dim_size() == static_cast<int>(shape.size());
    for (int d = 0; agrees && d < tensor.shape().dim_size(); ++d) {
      const auto& dim = tensor.shape().dim(d);
      symbolic = symbolic || !dim.has_dim_value();
      agrees = !dim.has_dim_value() || dim.dim_value() == shape[static_cast<size_t>(d)];
    }
    if (symbolic && agrees) shapes[name] = shape;
  }
  for (const auto& [name, shape] : shapes) {
    auto it = inputs.find(name);
    user_check(it != inputs.end(), "--input-shape names '", name, "', which is not an input of the model (inputs: ",
               names, ")");
    onnx::ValueInfoProto* input = it->second;
    user_check(input->type().has_tensor_type(), "input '", name, "' is not a tensor");
    auto* tensor_shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (tensor_shape->dim_size() == 0 && !input->type().tensor_type().has_shape()) {
      for (size_t i = 0; i < shape.size(); ++i) tensor_shape->add_dim();
    }
    user_check(tensor_shape->dim_size() == static_cast<int>(shape.size()), "--input-shape ", name, " of shape ",
               ir::shape_to_string(shape), " has rank ", shape.size(), ", but input '", name, "' has rank ",
               tensor_shape->dim_size());
    for (int d = 0; d < tensor_shape->dim_size(); ++d) {
      auto* dim = tensor_shape->mutable_dim(d);
      user_check(!dim->has_dim_value() || dim->dim_value() == shape[d], "--input-shape ", name, " of shape ",
                 ir::shape_to_string(shape), " gives dimension ", d, " as ", shape[d], ", but the model fixes it to ", dim->dim_value());
      dim->set_dim_value(shape[d]);
    }
  }
}

// Runs ONNX's checker and shape inference (isolated: onnx_isolated.h) on a
// working copy that the installed library understands; returns the inferred
// graph's value infos.
std::map<std::string, onnx::ValueInfoProto> check_and_infer(const onnx::ModelProto& model, int opset,
                                                             const std::string& path) {
  const onnx::ModelProto inferred = run_isolated("checker and shape inference", path, model, [&](const onnx::ModelProto& m) {
    onnx::ModelProto copy = m;
    downgrade_to_library_opset(copy, opset);
    try {
      onnx::checker::check_model(copy);
    } catch (const std::exception& e) {
      user_fail("'", path, "' is not a valid ONNX model: ", e.what());
    }
    try {
      // Strict mode: a node whose input shapes do not fit (a shape mismatch)
      // is an error here rather than a wrong shape later. Data propagation
      // lets Shape -> Gather -> Reshape chains come out static.
      onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
      onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      user_fail("'", path, "': ONNX shape inference failed: ", e.what());
    }
    // Only the value infos come back: the weights stay out of the pipe.
    onnx::ModelProto infos;
    auto* g = infos.mutable_graph();
    *g->mutable_value_info() = copy.graph().value_info();
    *g->mutable_output() = copy.graph().output();
    *g->mutable_input() = copy.graph().input();
    return infos;
  });
  std::map<std::string, onnx::ValueInfoProto> infos;
  for (const auto& v : inferred.graph().value_info()) infos[v.name()] = v;
  for (const auto& v : inferred.graph().output()) infos[v.name()] = v;
  for (const auto& v : inferred.graph().input()) infos[v.name()] = v;
  return infos;
}

// The value's dtype and shape; shape_known is false when inference left it
// unknown or symbolic. Graph inputs must be fully static (see import.h).
// A sequence or optional of tensors: its kind and its tensors' element type
// (their shapes come with the value: pass_composites.cpp).
ValueInfo container_info(const onnx::TypeProto& type, const std::string& what) {
  ValueInfo info;
  info.shape_known = false;
  const onnx::TypeProto* inner = &type;
  if (type.has_optional_type()) {
    inner = &type.optional_type().elem_type();
    info.kind = inner->has_sequence_type() ? ValueKind::OptionalSequence : ValueKind::OptionalTensor;
  } else {
    info.kind = ValueKind::Sequence;
  }
  if (inner->has_sequence_type()) inner = &inner->sequence_type().elem_type();
  user_check(inner->has_tensor_type(), what,
             " is not a tensor, a sequence of tensors or an optional of either; those are the values tunectl holds");
  const int32_t elem = inner->tensor_type().elem_type();
  if (elem != onnx::TensorProto::UNDEFINED) info.dtype = dtype_from_onnx(elem, what);
  return info;
}

ValueInfo value_info_from(const onnx::ValueInfoProto& proto, bool is_graph_input) {
  const std::string what = (is_graph_input ? "input '" : "value '") + proto.name() + "'";
  if (proto.type().has_sequence_type() || proto.type().has_optional_type()) return container_info(proto.type(), what);
  user_check(proto.type().has_tensor_type(), what,
             " is not a tensor, a sequence of tensors or an optional of either; those are the values tunectl holds");
  const auto& tensor = proto.type().tensor_type();
  ValueInfo info;
  if (tensor.elem_type() == onnx::TensorProto::UNDEFINED) {
    user_check(!is_graph_input, what, " has no element type");
    info.shape_known = false;
    return info;
  }
  info.dtype = dtype_from_onnx(tensor.elem_type(), what);
  if (!tensor.has_shape()) {
    user_check(!is_graph_input, what, " has no shape; give it with --input-shape ", proto.name(), "=...");
    info.shape_known = false;
    return info;
  }
  for (int d = 0; d < tensor.shape().dim_size(); ++d) {
    const auto& dim = tensor.shape().dim(d);
    if (!dim.has_dim_value()) {
      user_check(!is_graph_input, what, " has symbolic dimension ", d,
                 dim.has_dim_param() ? " '" + dim.dim_param() + "'" : std::string(), "; pin it with --input-shape ",
                 proto.name(), "=<d0>x<d1>x...");
      info.shape.clear();
      info.shape_known = false;
      return info;
    }
    user_check(dim.dim_value() >= 0, what, " has dimension ", d, " of negative size ", dim.dim_value());
    info.shape.push_back(dim.dim_value());
  }
  runtime::checked_element_count(info.shape, what);
  return info;
}

AttrValue convert_attribute(const onnx::AttributeProto& attr, const Node& node) {
  auto type = attr.type();
  if (type == onnx::AttributeProto::UNDEFINED) {
    // Old exporters (IR version 1-2) leave the type out; the set field tells.
    if (attr.has_f()) type = onnx::AttributeProto::FLOAT;
    else if (attr.has_i()) type = onnx::AttributeProto::INT;
    else if (attr.has_s()) type = onnx::AttributeProto::STRING;
    else if (attr.has_t()) type = onnx::AttributeProto::TENSOR;
    else if (attr.floats_size()) type = onnx::AttributeProto::FLOATS;
    else if (attr.ints_size()) type = onnx::AttributeProto::INTS;
    else if (attr.strings_size()) type = onnx::AttributeProto::STRINGS;
  }
  switch (type) {
    case onnx::AttributeProto::INT: return attr.i();
    case onnx::AttributeProto::FLOAT: return static_cast<double>(attr.f());
    case onnx::AttributeProto::STRING: return attr.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(attr.ints().begin(), attr.ints().end());
    case onnx::AttributeProto::FLOATS: return std::vector<double>(attr.floats().begin(), attr.floats().end());
    case onnx::AttributeProto::STRINGS: return std::vector<std::string>(attr.strings().begin(), attr.strings().end());
    case onnx::AttributeProto::TENSOR:
      return tensor_from_proto(attr.t(), node.describe() + ": attribute '" + attr.name() + "'");
    default: break;
  }
  user_fail(node.describe(), ": attribute '", attr.name(), "' has no value");
}

Node node_from_proto(const onnx::NodeProto& proto, int index) {
  Node node;
  node.name = onnx_node_name(proto, index);
  node.op_type = proto.op_type();
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  for (const auto& attr : proto.attribute()) node.attrs.values[attr.name()] = convert_attribute(attr, node);
  return node;
}

// The value of a Constant node, from whichever attribute holds it.
runtime::NDArray constant_value(const Node& node) {
  const auto& attrs = node.attrs;
  user_check(attrs.values.size() == 1, node.describe(), ": needs exactly one value attribute, has ",
             attrs.values.size());
  if (attrs.has("value")) return attrs.get_tensor(node, "value");
  if (attrs.has("value_float")) {
    runtime::NDArray a(ir::DType::Float32, {});
    a.data<float>()[0] = static_cast<float>(attrs.get_float(node, "value_float", 0));
    return a;
  }
  if (attrs.has("value_int")) {
    runtime::NDArray a(ir::DType::Int64, {});
    a.data<int64_t>()[0] = attrs.get_int(node, "value_int");
    return a;
  }
  if (attrs.has("value_ints")) {
    std::vector<int64_t> v = attrs.get_ints(node, "value_ints");
    runtime::NDArray a(ir::DType::Int64, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), a.data<int64_t>());
    return a;
  }
  if (attrs.has("value_floats")) {
    const auto* v = std::get_if<std::vector<double>>(&attrs.values.at("value_floats"));
    user_check(v != nullptr && !v->empty(), node.describe(), ": value_floats must be a non-empty list of floats");
    runtime::NDArray a(ir::DType::Float32, {static_cast<int64_t>(v->size())});
    for (size_t i = 0; i < v->size(); ++i) a.data<float>()[i] = static_cast<float>((*v)[i]);
    return a;
  }
  user_fail(node.describe(), ": attribute '", attrs.values.begin()->first,
            "' is not supported (supported: value, value_float, value_floats, value_int, value_ints)");
}

void add_constant(Graph& g, const std::string& name, runtime::NDArray value) {
  g.values[name] = ValueInfo{value.dtype(), value.shape(), true};
  g.constants[name] = std::move(value);
}

Graph build_graph(const onnx::GraphProto& proto, int opset,
                  const std::map<std::string, onnx::ValueInfoProto>& inferred) {
  Graph g;
  g.opset = opset;
  for (const auto& init : proto.initializer()) {
    add_constant(g, init.name(), tensor_from_proto(init, "initializer '" + init.name() + "'"));
  }
  for (const auto& in : proto.input()) {
    if (g.is_constant(in.name())) continue;  // IR < 4 lists initializers among the inputs
    g.values[in.name()] = value_info_from(inferred.at(in.name()), true);
    g.inputs.push_back(in.name());
  }
  // Every value a node reads must exist before it: ONNX requires nodes in
  // topological order, and the passes rely on it.
  std::set<std::string> defined;
  for (const auto& [name, info] : g.values) defined.insert(name);
  for (int i = 0; i < proto.node_size(); ++i) {
    Node node = node_from_proto(proto.node(i), i);
    for (const std::string& in : node.inputs) {
      user_check(in.empty() || defined.count(in), node.describe(), ": input '", in,
                 "' is not a graph input, an initializer or the output of an earlier node (nodes must be in "
                 "topological order)");
    }
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      user_check(defined.insert(out).second, node.describe(), ": output '", out, "' is already defined");
    }
    if (node.op_type == "Constant") {
      user_check(node.outputs.size() == 1, node.describe(), ": must have one output");
      add_constant(g, node.outputs[0], constant_value(node));
      continue;
    }
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      auto it = inferred.find(out);
      g.values[out] = it != inferred.end() ? value_info_from(it->second, false) : ValueInfo{ir::DType::Float32, {}, false};
    }
    g.nodes.push_back(std::move(node));
  }
  for (const auto& out : proto.output()) g.outputs.push_back(out.name());  // check_outputs_produced
  g.declared_outputs = g.outputs;
  return g;
}

}  // namespace

Graph import_onnx(const std::string& path, const ImportOptions& options) {
  onnx::ModelProto model = parse_model(read_protobuf_file(path, "model file"), path);
  int opset = default_opset(model, path);
  check_outputs_produced(model.graph());
  upgrade_old_opset(model, opset, path);
  check_operators(model.graph());
  check_legacy_opset(model.graph(), opset);
  load_external_data(model, fs::absolute(fs::path(path)).parent_path());
  pin_input_shapes(*model.mutable_graph(), options);
  auto inferred = check_and_infer(model, opset, path);
  return build_graph(model.graph(), opset, inferred);
}

void parse_input_shape(const std::string& spec, ImportOptions& options) {
  auto eq = spec.rfind('=');
  user_check(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), "--input-shape '", spec,
             "' is malformed; expected name=d0xd1x... (e.g. input=1x3x224x224)");
  std::string name = spec.substr(0, eq);
  std::vector<int64_t> shape;
  std::stringstream dims(spec.substr(eq + 1));
  std::string dim;
  while (std::getline(dims, dim, 'x')) {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(dim, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    user_check(!dim.empty() && used == dim.size() && v > 0, "--input-shape '", spec, "': dimension '", dim,
               "' is not a positive integer");
    shape.push_back(v);
  }
  user_check(spec.back() != 'x', "--input-shape '", spec, "': trailing 'x'");
  user_check(!options.input_shapes.count(name), "--input-shape gives '", name, "' twice");
  options.input_shapes[name] = std::move(shape);
}

void parse_binding(const std::string& spec, ImportOptions& options) {
  const size_t eq = spec.find('=');
  user_check(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), "--bind '", spec,
             "' is malformed; expected name=v1,v2,... (e.g. shape=1,3,224,224)");
  const std::string name = spec.substr(0, eq);
  std::vector<std::string> values;
  std::stringstream list(spec.substr(eq + 1));
  for (std::string v; std::getline(list, v, ',');) {
    user_check(!v.empty(), "--bind '", spec, "': an empty value");
    values.push_back(v);
  }
  user_check(spec.back() != ',', "--bind '", spec, "': trailing ','");
  user_check(!options.bindings.count(name), "--bind gives '", name, "' twice");
  options.bindings[name] = std::move(values);
}

}  // namespace tunectl::graph
