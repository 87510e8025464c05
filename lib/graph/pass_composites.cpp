// Sequences and optionals, resolved at compile time. tunectl compiles static
// shapes, so a sequence has a known length and an optional is known to be
// present or empty: each is the list of tensor values it holds, and the
// operators on them become operators on those tensors (SequenceAt an
// Identity, ConcatFromSequence a Concat, SplitToSequence a Split) or
// constants (SequenceLength, OptionalHasElement). An input sequence or
// optional takes its length and shapes from the value `run` is given
// (expand_composite_inputs); an output one is written from its tensors
// (Graph::composite_outputs).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "graph/convert.h"
#include "graph/passes.h"
#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

namespace {

const std::set<std::string>& container_ops() {
  static const std::set<std::string> ops{"SequenceConstruct",  "SequenceEmpty",   "SequenceAt",
                                         "SequenceLength",     "SequenceInsert",  "SequenceErase",
                                         "SplitToSequence",    "ConcatFromSequence", "Optional",
                                         "OptionalHasElement", "OptionalGetElement"};
  return ops;
}

runtime::NDArray int64_array(const std::vector<int64_t>& v) {
  runtime::NDArray a(ir::DType::Int64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a.set_int(static_cast<int64_t>(i), v[i]);
  return a;
}

class Resolver {
 public:
  explicit Resolver(Graph& g) : g_(g) {}

  void run() {
    for (const std::string& in : g_.inputs) {
      const ValueInfo& info = g_.info(in);
      user_check(info.kind == ValueKind::Tensor, "input '", in, "' is ", describe(info.kind), " of ",
                 ir::to_string(info.dtype), ": tunectl compiles it for the number and shapes of its tensors, so it "
                 "needs its value: `tunectl run --input ", in, "=FILE.pb` (an ONNX ",
                 info.kind == ValueKind::Sequence ? "SequenceProto" : "OptionalProto", " file)");
    }
    for (const Node& n : g_.nodes) resolve(n);
    std::vector<std::string> outputs;
    for (const std::string& o : g_.outputs) {
      auto it = known_.find(o);
      if (it == known_.end()) {
        outputs.push_back(o);
        continue;
      }
      // Each tensor of an output container becomes an output of its own.
      Composite out = it->second;
      out.elements.clear();
      for (size_t i = 0; i < it->second.elements.size(); ++i) {
        const std::string& element = it->second.elements[i];
        const std::string name = g_.fresh_name(o + "[" + std::to_string(i) + "]");
        ValueInfo info = g_.info(element);
        g_.values[name] = info;
        emit("Identity", o + "_element_" + std::to_string(i), {element}, {name});
        outputs.push_back(name);
        out.elements.push_back(name);
      }
      g_.composite_outputs[o] = out;
    }
    std::erase_if(g_.values, [](const auto& kv) { return kv.second.kind != ValueKind::Tensor; });
    g_.nodes = std::move(nodes_);
    g_.outputs = std::move(outputs);
  }

 private:
  void resolve(const Node& n) {
    const bool reads_container = std::any_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) { return known_.count(in) > 0; });
    if (!container_ops().count(n.op_type) && !(n.op_type == "Identity" && reads_container)) {
      for (const std::string& in : n.inputs) {
        if (auto it = known_.find(in); it != known_.end())
          user_fail(n.describe(), ": reads '", in, "', ", describe(it->second.kind),
                    "; tunectl resolves sequences and optionals when it compiles the model, and ", n.op_type,
                    " takes tensors");
      }
      for (const std::string& out : n.outputs) {
        if (!out.empty() && g_.info(out).kind != ValueKind::Tensor)
          user_fail(n.describe(), ": makes '", out, "', ", describe(g_.info(out).kind),
                    ", which tunectl cannot resolve from ", n.op_type);
      }
      nodes_.push_back(n);
      return;
    }
    const std::string& out = n.outputs.at(0);
    const std::string& op = n.op_type;
    if (op == "Identity") {
      known_[out] = container(n, 0);
    } else if (op == "SequenceConstruct") {
      Composite c{ValueKind::Sequence, g_.info(out).dtype, true, {}};
      for (size_t i = 0; i < n.inputs.size(); ++i) c.elements.push_back(tensor_input(n, i));
      known_[out] = c;
    } else if (op == "SequenceEmpty") {
      known_[out] = Composite{ValueKind::Sequence, g_.info(out).dtype, true, {}};
    } else if (op == "SequenceAt") {
      const Composite& c = sequence(n);
      forward(n, c.elements[position(n, 1, c.elements.size(), false, 0)], out);
    } else if (op == "SequenceLength") {
      runtime::NDArray length(ir::DType::Int64, {});
      length.set_int(0, static_cast<int64_t>(sequence(n).elements.size()));
      set_constant(out, length);
    } else if (op == "SequenceInsert") {
      Composite c = sequence(n);
      const std::string tensor = tensor_input(n, 1);
      const size_t at = position(n, 2, c.elements.size(), true, static_cast<int64_t>(c.elements.size()));
      c.elements.insert(c.elements.begin() + static_cast<int64_t>(at), tensor);
      known_[out] = c;
    } else if (op == "SequenceErase") {
      Composite c = sequence(n);
      user_check(!c.elements.empty(), n.describe(), ": erases from an empty sequence");
      c.elements.erase(c.elements.begin() + static_cast<int64_t>(position(n, 1, c.elements.size(), false, -1)));
      known_[out] = c;
    } else if (op == "ConcatFromSequence") {
      concat_from_sequence(n);
    } else if (op == "SplitToSequence") {
      split_to_sequence(n);
    } else if (op == "Optional") {
      optional(n);
    } else if (op == "OptionalHasElement") {
      runtime::NDArray has(ir::DType::Bool, {});
      const bool given = !n.inputs.empty() && !n.inputs[0].empty();
      has.set_int(0, given && (!known_.count(n.inputs[0]) || known_.at(n.inputs[0]).present));
      set_constant(out, has);
    } else if (op == "OptionalGetElement") {
      optional_get_element(n);
    } else {
      internal_fail("resolve_composites: no rule for ", op);
    }
  }

  // Input i as a container; UserError when it is a tensor or omitted.
  const Composite& container(const Node& n, size_t i) const {
    const std::string name = i < n.inputs.size() ? n.inputs[i] : "";
    auto it = known_.find(name);
    user_check(it != known_.end(), n.describe(), ": input ", i, " ('", name, "') is not a sequence or optional");
    return it->second;
  }
  const Composite& sequence(const Node& n) const {
    const Composite& c = container(n, 0);
    user_check(c.kind == ValueKind::Sequence, n.describe(), ": input 0 is ", describe(c.kind), ", not a sequence");
    return c;
  }
  std::string tensor_input(const Node& n, size_t i) const {
    user_check(i < n.inputs.size() && !n.inputs[i].empty(), n.describe(), ": input ", i, " is missing");
    if (auto it = known_.find(n.inputs[i]); it != known_.end())
      user_fail(n.describe(), ": input ", i, " ('", n.inputs[i], "') is ", describe(it->second.kind), ", not a tensor");
    return n.inputs[i];
  }

  // Input i, a constant integer (fallback when omitted).
  const runtime::NDArray* constant(const Node& n, size_t i, const char* what) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    const std::string& name = n.inputs[i];
    if (g_.is_constant(name)) return &g_.constants.at(name);
    const std::string input = detail::concat(n.describe(), ": input ", i, " ('", name, "', ", what, ")");
    // One the graph inputs decide: a caller that knows them binds them (specialize).
    if (std::vector<std::string> from = g_.upstream_inputs(name); !from.empty()) fail_shape_input(input, name, from);
    user_fail(input, " must be a constant: tunectl resolves sequences when it compiles the model");
  }
  // A position input in [-size, size) (or up to size with `end`), as an index.
  size_t position(const Node& n, size_t i, size_t size, bool end, int64_t fallback) const {
    const runtime::NDArray* p = constant(n, i, "the position");
    user_check(!p || p->num_elements() == 1, n.describe(), ": the position must be a scalar");
    int64_t v = p ? p->get_int(0) : fallback;
    const auto s = static_cast<int64_t>(size);
    user_check(v >= -s && (end ? v <= s : v < s), n.describe(), ": position ", v, " is outside a sequence of ", s,
               " tensors");
    return static_cast<size_t>(v < 0 ? v + s : v);
  }

  void emit(const std::string& op, const std::string& name, std::vector<std::string> inputs,
            std::vector<std::string> outputs, std::map<std::string, AttrValue> attrs = {}) {
    Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attrs.values = std::move(attrs);
    nodes_.push_back(std::move(n));
  }
  void forward(const Node& n, const std::string& from, const std::string& to) { emit("Identity", n.name, {from}, {to}); }
  void set_constant(const std::string& name, const runtime::NDArray& value) {
    g_.constants[name] = value;
    g_.values[name] = ValueInfo{value.dtype(), value.shape()};
  }
  // A new tensor value whose shape the passes infer.
  std::string new_value(const std::string& base, ir::DType dtype) {
    const std::string name = g_.fresh_name(base);
    g_.values[name] = ValueInfo{dtype, {}, false};
    return name;
  }
  // Unsqueeze and Squeeze take their axes as an input from opset 13, as an attribute before.
  void emit_with_axes(const std::string& op, const std::string& name, const std::string& in, const std::string& out,
                      int64_t axis) {
    if (g_.opset < 13) return emit(op, name, {in}, {out}, {{"axes", std::vector<int64_t>{axis}}});
    const std::string axes = g_.fresh_name(name + "_axes");
    set_constant(axes, int64_array({axis}));
    emit(op, name, {in, axes}, {out});
  }

  void concat_from_sequence(const Node& n) {
    const Composite& c = sequence(n);
    user_check(!c.elements.empty(), n.describe(), ": concatenates an empty sequence");
    const int64_t axis = n.attrs.get_int(n, "axis");
    std::vector<std::string> parts = c.elements;
    if (n.attrs.get_int(n, "new_axis", 0) != 0) {
      // Each tensor gains the axis (numpy.stack); an axis counted from the
      // end counts in the result, as Unsqueeze's does.
      for (size_t i = 0; i < parts.size(); ++i) {
        const std::string u = new_value(n.outputs[0] + "_part" + std::to_string(i), c.dtype);
        emit_with_axes("Unsqueeze", n.name + "_unsqueeze" + std::to_string(i), parts[i], u, axis);
        parts[i] = u;
      }
    }
    emit("Concat", n.name, parts, {n.outputs[0]}, {{"axis", axis}});
  }

  void split_to_sequence(const Node& n) {
    const std::string x = tensor_input(n, 0);
    const ValueInfo& info = g_.info(x);
    user_check(info.shape_known, n.describe(), ": the shape of input '", x, "' is not known when compiling");
    const auto rank = static_cast<int64_t>(info.shape.size());
    int64_t axis = n.attrs.get_int(n, "axis", 0);
    user_check(axis >= -rank && axis < rank, n.describe(), ": axis ", axis, " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    const int64_t dim = info.shape[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    const runtime::NDArray* split = constant(n, 1, "split");
    if (!split) {
      sizes.assign(static_cast<size_t>(dim), 1);  // one tensor per index
    } else if (split->shape().empty()) {
      const int64_t chunk = split->get_int(0);
      user_check(chunk > 0, n.describe(), ": split ", chunk, " must be positive");
      for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
    } else {
      int64_t sum = 0;
      for (int64_t i = 0; i < split->num_elements(); ++i) {
        sizes.push_back(split->get_int(i));
        user_check(sizes.back() >= 0, n.describe(), ": split sizes must not be negative");
        sum += sizes.back();
      }
      user_check(sum == dim, n.describe(), ": split sizes add up to ", sum, ", but axis ", axis, " has ", dim);
    }
    Composite c{ValueKind::Sequence, info.dtype, true, {}};
    for (size_t i = 0; i < sizes.size(); ++i) c.elements.push_back(new_value(n.outputs[0] + "_" + std::to_string(i), info.dtype));
    if (!sizes.empty()) {
      if (g_.opset < 13) {
        emit("Split", n.name, {x}, c.elements, {{"axis", axis}, {"split", sizes}});
      } else {
        const std::string sizes_name = g_.fresh_name(n.name + "_split");
        set_constant(sizes_name, int64_array(sizes));
        emit("Split", n.name, {x, sizes_name}, c.elements, {{"axis", axis}});
      }
    }
    if (!split && n.attrs.get_int(n, "keepdims", 1) == 0) {
      for (size_t i = 0; i < c.elements.size(); ++i) {
        const std::string squeezed = new_value(c.elements[i] + "_squeezed", info.dtype);
        emit_with_axes("Squeeze", n.name + "_squeeze" + std::to_string(i), c.elements[i], squeezed, axis);
        c.elements[i] = squeezed;
      }
    }
    known_[n.outputs[0]] = c;
  }

  void optional(const Node& n) {
    const std::string& out = n.outputs[0];
    if (n.inputs.empty() || n.inputs[0].empty()) {
      known_[out] = Composite{g_.info(out).kind, g_.info(out).dtype, false, {}};
      return;
    }
    auto it = known_.find(n.inputs[0]);
    if (it != known_.end()) {
      user_check(it->second.kind == ValueKind::Sequence, n.describe(), ": an optional of ", describe(it->second.kind),
                 " is not supported");
      known_[out] = Composite{ValueKind::OptionalSequence, it->second.dtype, true, it->second.elements};
    } else {
      known_[out] = Composite{ValueKind::OptionalTensor, g_.info(n.inputs[0]).dtype, true, {n.inputs[0]}};
    }
  }

  void optional_get_element(const Node& n) {
    const std::string& out = n.outputs[0];
    if (!known_.count(n.inputs.at(0))) return forward(n, tensor_input(n, 0), out);  // a tensor (opset 18)
    const Composite& c = container(n, 0);
    user_check(c.present, n.describe(), ": the optional '", n.inputs[0], "' is empty");
    if (c.kind == ValueKind::OptionalTensor) return forward(n, c.elements.at(0), out);
    known_[out] = Composite{ValueKind::Sequence, c.dtype, true, c.elements};
  }

  Graph& g_;
  std::map<std::string, Composite> known_;  // the containers resolved so far
  std::vector<Node> nodes_;                 // the graph's nodes, rewritten
};

}  // namespace

std::string element_input_name(const std::string& input, size_t i) { return input + "[" + std::to_string(i) + "]"; }

Graph expand_composite_inputs(Graph g, const std::map<std::string, CompositeValue>& values,
                              std::map<std::string, runtime::NDArray>& feed) {
  std::vector<std::string> inputs;
  std::vector<Node> makers;  // the nodes that assemble each container from its tensors
  auto make = [&](const std::string& op, const std::string& name, std::vector<std::string> in, const std::string& out) {
    Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    makers.push_back(std::move(n));
  };
  for (const std::string& name : g.inputs) {
    const ValueInfo info = g.info(name);
    auto it = values.find(name);
    if (info.kind == ValueKind::Tensor || it == values.end()) {
      inputs.push_back(name);
      continue;
    }
    const CompositeValue& v = it->second;
    user_check(v.kind == info.kind, "input '", name, "' is ", describe(info.kind), "; the value given for it is ",
               describe(v.kind));
    std::vector<std::string> elements;
    for (size_t i = 0; i < v.elements.size(); ++i) {
      const runtime::NDArray& e = v.elements[i];
      user_check(e.dtype() == info.dtype, "input '", name, "' holds ", ir::to_string(info.dtype), " tensors; tensor ",
                 i, " of the value given is ", ir::to_string(e.dtype()));
      const std::string element = element_input_name(name, i);
      user_check(!g.values.count(element), "input '", name, "': the name of its tensor ", i, ", '", element,
                 "', is already a value of the model");
      g.values[element] = ValueInfo{e.dtype(), e.shape()};
      feed[element] = e;
      inputs.push_back(element);
      elements.push_back(element);
    }
    internal_check(info.kind != ValueKind::OptionalTensor || !v.present || v.elements.size() == 1,
                   "a present optional tensor holds one tensor");
    const bool sequence = info.kind != ValueKind::OptionalTensor;
    std::string made = name;
    if (info.kind == ValueKind::OptionalSequence && v.present) {
      made = g.fresh_name(name + "_sequence");
      g.values[made] = ValueInfo{info.dtype, {}, false, ValueKind::Sequence};
    }
    if (sequence && v.present) make(elements.empty() ? "SequenceEmpty" : "SequenceConstruct", made + "_construct", elements, made);
    if (info.kind != ValueKind::Sequence) {
      const std::vector<std::string> held = !v.present ? std::vector<std::string>{} : sequence ? std::vector{made} : elements;
      make("Optional", name + "_optional", held, name);
    }
  }
  g.inputs = std::move(inputs);
  g.nodes.insert(g.nodes.begin(), makers.begin(), makers.end());
  return g;
}

Graph resolve_composites(Graph g) {
  Resolver(g).run();
  return g;
}

}  // namespace tunectl::graph
