#include "graph/graph.h"

#include <algorithm>
#include <set>

#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

namespace {

// Names of the AttrValue alternatives, in variant order, for messages.
const char* attr_type_name(const AttrValue& v) {
  static const char* const kNames[] = {"int", "float", "string", "ints", "floats", "strings", "tensor"};
  static_assert(std::variant_size_v<AttrValue> == std::size(kNames));
  return kNames[v.index()];
}

template <typename T>
const char* type_name_of() {
  return attr_type_name(AttrValue(T{}));
}

// The attribute's value as T; UserError naming the node when it is missing
// or holds another type.
template <typename T>
const T& get_required(const Attributes& attrs, const Node& node, const std::string& name) {
  auto it = attrs.values.find(name);
  user_check(it != attrs.values.end(), node.describe(), ": attribute '", name, "' is required but missing");
  const T* v = std::get_if<T>(&it->second);
  user_check(v != nullptr, node.describe(), ": attribute '", name, "' has type ", attr_type_name(it->second),
             ", expected ", type_name_of<T>());
  return *v;
}

}  // namespace

int64_t Attributes::get_int(const Node& node, const std::string& name) const {
  return get_required<int64_t>(*this, node, name);
}

int64_t Attributes::get_int(const Node& node, const std::string& name, int64_t fallback) const {
  return has(name) ? get_required<int64_t>(*this, node, name) : fallback;
}

double Attributes::get_float(const Node& node, const std::string& name, double fallback) const {
  return has(name) ? get_required<double>(*this, node, name) : fallback;
}

std::string Attributes::get_string(const Node& node, const std::string& name, const std::string& fallback) const {
  return has(name) ? get_required<std::string>(*this, node, name) : fallback;
}

std::vector<int64_t> Attributes::get_ints(const Node& node, const std::string& name) const {
  return get_required<std::vector<int64_t>>(*this, node, name);
}

std::vector<int64_t> Attributes::get_ints(const Node& node, const std::string& name,
                                          std::vector<int64_t> fallback) const {
  return has(name) ? get_required<std::vector<int64_t>>(*this, node, name) : fallback;
}

const runtime::NDArray& Attributes::get_tensor(const Node& node, const std::string& name) const {
  return get_required<runtime::NDArray>(*this, node, name);
}

std::string Node::describe() const { return "node '" + name + "' (" + op_type + ")"; }

const ValueInfo& Graph::info(const std::string& value) const {
  auto it = values.find(value);
  internal_check(it != values.end(), "graph has no value '", value, "'");
  return it->second;
}

int Graph::producer(const std::string& value) const {
  if (value.empty()) return -1;  // "" marks an omitted optional input or output
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& out : nodes[i].outputs) {
      if (out == value) return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<std::string> Graph::upstream_inputs(const std::string& value) const {
  std::set<std::string> seen, reached;
  std::vector<std::string> todo{value};
  while (!todo.empty()) {
    std::string v = std::move(todo.back());
    todo.pop_back();
    if (v.empty() || !seen.insert(v).second) continue;
    const int p = producer(v);
    if (p < 0) {
      reached.insert(v);
      continue;
    }
    todo.insert(todo.end(), nodes[p].inputs.begin(), nodes[p].inputs.end());
  }
  std::vector<std::string> out;
  for (const std::string& in : inputs)
    if (reached.count(in)) out.push_back(in);
  return out;
}

std::vector<int> Graph::consumers(const std::string& value) const {
  std::vector<int> result;
  if (value.empty()) return result;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) {
      if (in == value) {
        result.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return result;
}

void Graph::remove_nodes(const std::vector<bool>& removed) {
  internal_check(removed.size() == nodes.size(), "remove_nodes: one flag per node");
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(nodes[i]));
  nodes = std::move(kept);
}

bool Graph::is_output(const std::string& value) const {
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

std::string Graph::fresh_name(const std::string& base) const {
  std::string name = base;
  for (int i = 1; values.count(name) || constants.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

size_t value_bytes(const ValueInfo& info) {
  size_t n = static_cast<size_t>(ir::dtype_bytes(info.dtype));
  for (int64_t d : info.shape) n *= static_cast<size_t>(d);
  return n;
}

std::string describe(ValueKind kind) {
  switch (kind) {
    case ValueKind::Tensor: return "a tensor";
    case ValueKind::Sequence: return "a sequence of tensors";
    case ValueKind::OptionalTensor: return "an optional tensor";
    case ValueKind::OptionalSequence: return "an optional sequence of tensors";
  }
  internal_fail("bad value kind");
}

CompositeValue composite_value(const Composite& layout, const std::map<std::string, runtime::NDArray>& tensors) {
  CompositeValue v{layout.kind, layout.dtype, layout.present, {}};
  for (const std::string& e : layout.elements) v.elements.push_back(tensors.at(e));
  return v;
}

runtime::CompareResult compare_composites(const CompositeValue& actual, const CompositeValue& expected, double rtol,
                                          double atol) {
  if (actual.kind != expected.kind) return {false, describe(actual.kind) + ", expected " + describe(expected.kind)};
  if (actual.present != expected.present)
    return {false, std::string(actual.present ? "present" : "empty") + ", expected " +
                       (expected.present ? "present" : "empty")};
  if (actual.elements.size() != expected.elements.size())
    return {false, std::to_string(actual.elements.size()) + " tensors, expected " +
                       std::to_string(expected.elements.size())};
  for (size_t i = 0; i < actual.elements.size(); ++i) {
    const runtime::NDArray &a = actual.elements[i], &e = expected.elements[i];
    if (a.dtype() != e.dtype() || a.shape() != e.shape())
      return {false, "tensor " + std::to_string(i) + " is " + std::string(ir::to_string(a.dtype())) + " " +
                         ir::shape_to_string(a.shape()) + ", expected " + std::string(ir::to_string(e.dtype())) + " " +
                         ir::shape_to_string(e.shape())};
    runtime::CompareResult r = runtime::all_close(a, e, rtol, atol);
    if (!r.ok) return {false, "tensor " + std::to_string(i) + ": " + r.message};
  }
  return {};
}

}  // namespace tunectl::graph
