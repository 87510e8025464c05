#include "te/dag_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "ir/error.h"

namespace tunectl::te {

using nlohmann::json;

namespace {

// ---- Writing ---------------------------------------------------------------
//
// An expression is a JSON array whose first element is the node kind's name
// (ir::to_string(ExprKind)); the rest depends on the kind:
//   ["IntImm", dtype, value]            ["FloatImm", dtype, value | "nan" | "inf" | "-inf"]
//   ["Var", "axis" | "reduce", k]       [<binary kind>, a, b]      ["Not", a]
//   ["Select", cond, t, f]              ["Cast", dtype, value]     ["Call", func, args...]
//   ["Load", op index, [indices...]]    ["Reduce", combiner, [[name, extent]...], source]
// Variables are positions, not names: a spatial axis of the op or an axis of
// its top-level reduction.

json float_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return v;
}

class ExprWriter {
 public:
  ExprWriter(const TensorNode& op, const std::string& where,
             const std::unordered_map<const ir::BufferNode*, int>& earlier_ops)
      : where_(where), earlier_ops_(earlier_ops) {
    for (size_t k = 0; k < op.axes.size(); ++k) vars_[op.axes[k].var.get()] = json::array({"Var", "axis", k});
  }

  json write(const ir::Expr& e) {
    const char* kind = ir::to_string(e.kind());
    switch (e.kind()) {
      case ir::ExprKind::IntImm: return json::array({kind, ir::to_string(e.dtype()), e.as<ir::IntImmNode>()->value});
      case ir::ExprKind::FloatImm:
        return json::array({kind, ir::to_string(e.dtype()), float_value(e.as<ir::FloatImmNode>()->value)});
      case ir::ExprKind::Var: {
        auto it = vars_.find(e.get());
        user_check(it != vars_.end(), where_, "reads variable '", e.as<ir::VarNode>()->name,
                   "', which is no axis of the op");
        return it->second;
      }
#define TUNECTL_WRITE_BINARY(name)                        \
  case ir::ExprKind::name: {                              \
    const auto* b = e.as<ir::name##Node>();               \
    return json::array({kind, write(b->a), write(b->b)}); \
  }
        TUNECTL_BINARY_NODES(TUNECTL_WRITE_BINARY)
#undef TUNECTL_WRITE_BINARY
      case ir::ExprKind::Not: return json::array({kind, write(e.as<ir::NotNode>()->a)});
      case ir::ExprKind::Select: {
        const auto* s = e.as<ir::SelectNode>();
        return json::array({kind, write(s->cond), write(s->true_value), write(s->false_value)});
      }
      case ir::ExprKind::Cast: return json::array({kind, ir::to_string(e.dtype()), write(e.as<ir::CastNode>()->value)});
      case ir::ExprKind::Call: {
        const auto* c = e.as<ir::CallNode>();
        json out = json::array({kind, ir::to_string(c->func)});
        for (const auto& a : c->args) out.push_back(write(a));
        return out;
      }
      case ir::ExprKind::Load: {
        const auto* l = e.as<ir::LoadNode>();
        auto it = earlier_ops_.find(l->buffer.get());
        user_check(it != earlier_ops_.end(), where_, "reads buffer '", l->buffer->name,
                   "', which belongs to no earlier op");
        json indices = json::array();
        for (const auto& i : l->indices) indices.push_back(write(i));
        return json::array({kind, it->second, std::move(indices)});
      }
      case ir::ExprKind::Reduce: {
        const auto* r = e.as<ir::ReduceNode>();
        json axes = json::array();
        for (size_t k = 0; k < r->axes.size(); ++k) {
          vars_[r->axes[k].var.get()] = json::array({"Var", "reduce", k});
          axes.push_back(json::array({r->axes[k].var.name(), r->axes[k].extent}));
        }
        return json::array({kind, ir::to_string(r->combiner), std::move(axes), write(r->source)});
      }
    }
    internal_fail("bad expr kind");
  }

 private:
  const std::string& where_;
  const std::unordered_map<const ir::BufferNode*, int>& earlier_ops_;
  std::unordered_map<const ir::ExprNode*, json> vars_;
};

// ---- Reading ---------------------------------------------------------------

// Throws UserError unless obj is an object holding exactly the keys in
// `allowed`, all of `required` among them.
void check_keys(const json& obj, const std::string& what, const std::set<std::string>& required,
                const std::set<std::string>& allowed) {
  user_check(obj.is_object(), what, " is not an object");
  for (const auto& key : required) user_check(obj.contains(key), what, " has no field '", key, "'");
  for (const auto& [key, value] : obj.items())
    user_check(allowed.count(key) != 0, what, " has an unknown field '", key, "'");
}

int64_t read_int(const json& j, const std::string& where) {
  user_check(j.is_number_integer(), where, ": expected an integer, got ", j.dump());
  if (j.is_number_unsigned())
    user_check(j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), where, ": integer ",
               j.dump(), " out of range");
  return j.get<int64_t>();
}

const std::string& read_string(const json& j, const std::string& where) {
  user_check(j.is_string(), where, ": expected a string, got ", j.dump());
  return j.get_ref<const std::string&>();
}

// Runs parse(text), prefixing its UserError with where.
template <typename F>
auto with_where(const std::string& where, F&& parse) {
  try {
    return parse();
  } catch (const UserError& e) {
    throw UserError(where + ": " + e.what());
  }
}

ir::DType read_dtype(const json& j, const std::string& where) {
  const std::string& s = read_string(j, where);
  return with_where(where, [&] { return ir::dtype_from_string(s); });
}

std::vector<int64_t> read_shape(const json& j, const std::string& where) {
  user_check(j.is_array(), where, ": expected an array of extents, got ", j.dump());
  std::vector<int64_t> shape;
  for (size_t k = 0; k < j.size(); ++k) {
    int64_t d = read_int(j[k], where + "[" + std::to_string(k) + "]");
    user_check(d > 0, where, "[", k, "]: extent ", d, " is not positive");
    shape.push_back(d);
  }
  return shape;
}

double read_float_value(const json& j, const std::string& where) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  user_fail(where, ": expected a number, \"nan\", \"inf\" or \"-inf\", got ", j.dump());
}

std::optional<ir::ExprKind> expr_kind_from_string(const std::string& s) {
#define TUNECTL_KIND_PARSE(name) \
  if (s == #name) return ir::ExprKind::name;
  TUNECTL_EXPR_NODES(TUNECTL_KIND_PARSE)
#undef TUNECTL_KIND_PARSE
  return std::nullopt;
}

// Rebuilds the body of op `self` through the checking make_* functions,
// after checking every rule they would otherwise enforce as internal errors,
// so that malformed JSON is a UserError naming the place.
class ExprReader {
 public:
  ExprReader(int self, const std::vector<Tensor>& earlier, const std::vector<ir::Var>& axes)
      : self_(self), earlier_(earlier), axes_(axes) {}

  ir::Expr read_body(const json& j) { return read(j, "body", true); }

 private:
  ir::Expr read(const json& j, const std::string& where, bool top) {
    user_check(j.is_array() && !j.empty() && j[0].is_string(), where,
               ": expected an expression array [kind, ...], got ", j.dump());
    const std::string& name = j[0].get_ref<const std::string&>();
    std::optional<ir::ExprKind> kind = expr_kind_from_string(name);
    user_check(kind.has_value(), where, ": unknown expression kind '", name, "'");
    auto at = [&](size_t k) { return where + "[" + std::to_string(k) + "]"; };
    auto arity = [&](size_t n) {
      user_check(j.size() == n + 1, where, ": ", name, " takes ", n, " operands, got ", j.size() - 1);
    };
    auto sub = [&](size_t k) { return read(j[k], at(k), false); };
    switch (*kind) {
      case ir::ExprKind::IntImm: {
        arity(2);
        ir::DType t = read_dtype(j[1], at(1));
        user_check(ir::is_int(t) || t == ir::DType::Bool, at(1), ": IntImm of type ", ir::to_string(t));
        int64_t v = read_int(j[2], at(2));
        if (t == ir::DType::Bool) user_check(v == 0 || v == 1, at(2), ": bool immediate ", v, " is not 0 or 1");
        user_check(ir::wrap_to(t, v) == v, at(2), ": ", v, " does not fit ", ir::to_string(t));
        return ir::make_int(v, t);
      }
      case ir::ExprKind::FloatImm: {
        arity(2);
        ir::DType t = read_dtype(j[1], at(1));
        user_check(ir::is_float(t), at(1), ": FloatImm of type ", ir::to_string(t));
        return ir::make_float(read_float_value(j[2], at(2)), t);
      }
      case ir::ExprKind::Var: {
        arity(2);
        const std::string& space = read_string(j[1], at(1));
        int64_t k = read_int(j[2], at(2));
        if (space == "axis") {
          user_check(k >= 0 && k < static_cast<int64_t>(axes_.size()), at(2), ": axis ", k,
                     " out of range (the op has ", axes_.size(), ")");
          return axes_[k];
        }
        user_check(space == "reduce", at(1), ": expected \"axis\" or \"reduce\", got \"", space, "\"");
        user_check(k >= 0 && k < static_cast<int64_t>(reduce_axes_.size()), at(2), ": reduce axis ", k,
                   " out of range (", reduce_axes_.size(), " in scope)");
        return reduce_axes_[k].var;
      }
#define TUNECTL_READ_BINARY(node) case ir::ExprKind::node:
        TUNECTL_BINARY_NODES(TUNECTL_READ_BINARY)
#undef TUNECTL_READ_BINARY
        {
          arity(2);
          ir::Expr a = sub(1), b = sub(2);
          check_binary_types(*kind, a, b, where);
          return ir::make_binary(*kind, a, b);
        }
      case ir::ExprKind::Not: {
        arity(1);
        ir::Expr a = sub(1);
        user_check(a.dtype() == ir::DType::Bool, where, ": Not of ", ir::to_string(a.dtype()));
        return ir::make_not(a);
      }
      case ir::ExprKind::Select: {
        arity(3);
        ir::Expr c = sub(1), t = sub(2), f = sub(3);
        user_check(c.dtype() == ir::DType::Bool, at(1), ": Select condition of type ", ir::to_string(c.dtype()));
        user_check(t.dtype() == f.dtype(), where, ": Select branches differ in type: ", ir::to_string(t.dtype()),
                   " vs ", ir::to_string(f.dtype()));
        return ir::make_select(c, t, f);
      }
      case ir::ExprKind::Cast: {
        arity(2);
        ir::DType t = read_dtype(j[1], at(1));
        ir::Expr v = sub(2);
        user_check(v.dtype() != t, where, ": Cast of ", ir::to_string(t), " to its own type");
        return ir::make_cast(t, v);
      }
      case ir::ExprKind::Call: {
        user_check(j.size() >= 2, where, ": Call needs a function name");
        const std::string& fname = read_string(j[1], at(1));
        ir::MathFunc f = with_where(at(1), [&] { return ir::math_func_from_string(fname); });
        user_check(static_cast<int>(j.size()) == ir::arity(f) + 2, where, ": ", fname, " takes ", ir::arity(f),
                   " arguments, got ", j.size() - 2);
        std::vector<ir::Expr> args;
        for (size_t k = 2; k < j.size(); ++k) {
          args.push_back(sub(k));
          const ir::DType t = args.back().dtype();
          const bool takes = ir::is_bit_func(f) ? ir::is_int(t) : ir::is_float(t);
          user_check(takes && t == args[0].dtype(), at(k), ": ", fname, " argument of type ", ir::to_string(t),
                     ir::is_bit_func(f) ? " (needs one integer type)" : " (needs one float type)");
        }
        return ir::make_call(f, std::move(args));
      }
      case ir::ExprKind::Load: return read_load(j, where, at);
      case ir::ExprKind::Reduce: {
        user_check(top, where, ": a Reduce is allowed only as the whole body");
        arity(3);
        ir::ReduceOp op = with_where(at(1), [&] { return ir::reduce_op_from_string(read_string(j[1], at(1))); });
        const json& axes = j[2];
        user_check(axes.is_array() && !axes.empty(), at(2), ": expected a non-empty array of [name, extent], got ",
                   axes.dump());
        for (size_t k = 0; k < axes.size(); ++k) {
          std::string w = at(2) + "[" + std::to_string(k) + "]";
          user_check(axes[k].is_array() && axes[k].size() == 2, w, ": expected [name, extent], got ", axes[k].dump());
          int64_t extent = read_int(axes[k][1], w + "[1]");
          user_check(extent > 0, w, "[1]: reduce extent ", extent, " is not positive");
          reduce_axes_.push_back(reduce_axis(extent, read_string(axes[k][0], w + "[0]")));
        }
        return ir::make_reduce(op, sub(3), reduce_axes_);
      }
    }
    internal_fail("bad expr kind");
  }

  template <typename At>
  ir::Expr read_load(const json& j, const std::string& where, const At& at) {
    user_check(j.size() == 3, where, ": Load takes 2 operands, got ", j.size() - 1);
    int64_t src = read_int(j[1], at(1));
    user_check(src >= 0 && src < self_, at(1), ": Load of op ", src, ", which does not come before op ", self_);
    const Tensor& t = earlier_[src];
    const json& idx = j[2];
    user_check(idx.is_array(), at(2), ": expected an array of indices, got ", idx.dump());
    user_check(idx.size() == t->shape().size(), at(2), ": ", idx.size(), " indices for op ", src, " ('", t->name,
               "') of rank ", t->shape().size());
    std::vector<ir::Expr> indices;
    for (size_t k = 0; k < idx.size(); ++k) {
      std::string w = at(2) + "[" + std::to_string(k) + "]";
      indices.push_back(read(idx[k], w, false));
      user_check(indices.back().dtype() == ir::kIndexType, w, ": index of type ", ir::to_string(indices.back().dtype()),
                 " (needs ", ir::to_string(ir::kIndexType), ")");
    }
    return ir::make_load(t->buffer, std::move(indices));
  }

  static void check_binary_types(ir::ExprKind k, const ir::Expr& a, const ir::Expr& b, const std::string& where) {
    const char* name = ir::to_string(k);
    user_check(a.dtype() == b.dtype(), where, ": ", name, " operands differ in type: ", ir::to_string(a.dtype()),
               " vs ", ir::to_string(b.dtype()));
    ir::DType t = a.dtype();
    switch (k) {
      case ir::ExprKind::Div:
        user_check(ir::is_float(t), where, ": Div of ", ir::to_string(t), " (integers use FloorDiv)");
        break;
      case ir::ExprKind::FloorDiv:
      case ir::ExprKind::FloorMod:
        user_check(ir::is_int(t), where, ": ", name, " of ", ir::to_string(t), " (needs integers)");
        break;
      case ir::ExprKind::And:
      case ir::ExprKind::Or:
        user_check(t == ir::DType::Bool, where, ": ", name, " of ", ir::to_string(t), " (needs bool)");
        break;
      default: break;
    }
  }

  int self_;
  const std::vector<Tensor>& earlier_;
  const std::vector<ir::Var>& axes_;
  std::vector<ir::IterVar> reduce_axes_;
};

Tensor read_op(const json& j, int self, const std::vector<Tensor>& earlier) {
  user_check(j.is_object(), "expected an object, got ", j.dump());
  user_check(j.contains("kind"), "no field 'kind'");
  const std::string& kind = read_string(j["kind"], "kind");
  if (kind == "placeholder") {
    check_keys(j, "placeholder", {"name", "kind", "shape", "dtype"}, {"name", "kind", "shape", "dtype", "constant"});
    bool constant = false;
    if (j.contains("constant")) {
      user_check(j["constant"].is_boolean(), "constant: expected true or false, got ", j["constant"].dump());
      constant = j["constant"].get<bool>();
    }
    return placeholder(read_string(j["name"], "name"), read_shape(j["shape"], "shape"),
                       read_dtype(j["dtype"], "dtype"), constant);
  }
  user_check(kind == "compute", "kind: expected \"placeholder\" or \"compute\", got \"", kind, "\"");
  const std::set<std::string> keys = {"name", "kind", "shape", "dtype", "tag", "axes", "body"};
  check_keys(j, "compute", keys, keys);
  const std::string& name = read_string(j["name"], "name");
  std::vector<int64_t> shape = read_shape(j["shape"], "shape");
  ir::DType dtype = read_dtype(j["dtype"], "dtype");
  const std::string& tag = read_string(j["tag"], "tag");
  user_check(read_shape(j["axes"], "axes") == shape, "axes: extents ", j["axes"].dump(), " differ from shape ",
             j["shape"].dump());
  return compute(
      name, shape,
      [&](const std::vector<ir::Var>& axes) {
        ir::Expr body = ExprReader(self, earlier, axes).read_body(j["body"]);
        user_check(body.dtype() == dtype, "body: of type ", ir::to_string(body.dtype()), " but the op is declared ",
                   ir::to_string(dtype));
        return body;
      },
      tag, dtype);
}

std::string op_label(const json& ops, size_t i) {
  std::string label = "op " + std::to_string(i);
  if (ops[i].is_object() && ops[i].contains("name") && ops[i]["name"].is_string())
    label += " (" + ops[i]["name"].get<std::string>() + ")";
  return label;
}

}  // namespace

json dag_to_json(const ComputeDAG& dag) {
  json ops = json::array();
  std::unordered_map<const ir::BufferNode*, int> earlier_ops;
  for (size_t i = 0; i < dag.ops().size(); ++i) {
    const TensorNode& t = *dag.ops()[i];
    json op = {{"name", t.name},
               {"kind", t.is_placeholder() ? "placeholder" : "compute"},
               {"shape", t.shape()},
               {"dtype", ir::to_string(t.dtype())}};
    if (t.constant) op["constant"] = true;
    if (!t.is_placeholder()) {
      std::string where = "dag_to_json: op " + std::to_string(i) + " (" + t.name + "): body ";
      json axes = json::array();
      for (const auto& a : t.axes) axes.push_back(a.extent);
      op["tag"] = t.tag;
      op["axes"] = std::move(axes);
      op["body"] = ExprWriter(t, where, earlier_ops).write(t.body);
    }
    ops.push_back(std::move(op));
    earlier_ops[t.buffer.get()] = static_cast<int>(i);
  }
  json outputs = json::array();
  for (const auto& t : dag.outputs()) outputs.push_back(dag.index_of(t));
  return {{"ops", std::move(ops)}, {"outputs", std::move(outputs)}};
}

ComputeDAG dag_from_json(const json& j) {
  with_where("dag JSON", [&] { check_keys(j, "the DAG", {"ops", "outputs"}, {"ops", "outputs"}); });
  const json& ops = j["ops"];
  user_check(ops.is_array() && !ops.empty(), "dag JSON: ops: expected a non-empty array");
  std::vector<Tensor> built;
  for (size_t i = 0; i < ops.size(); ++i)
    built.push_back(
        with_where("dag JSON: " + op_label(ops, i), [&] { return read_op(ops[i], static_cast<int>(i), built); }));

  const json& outs = j["outputs"];
  user_check(outs.is_array() && !outs.empty(), "dag JSON: outputs: expected a non-empty array of op indices");
  std::vector<Tensor> outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string where = "dag JSON: outputs[" + std::to_string(k) + "]";
    int64_t i = read_int(outs[k], where);
    user_check(i >= 0 && i < static_cast<int64_t>(built.size()), where, ": op ", i, " out of range (", built.size(),
               " ops)");
    outputs.push_back(built[i]);
  }

  // The listed order must be the one ComputeDAG derives, or the rebuilt DAG
  // would print (and key) differently from the JSON it came from.
  ComputeDAG dag(std::move(outputs));
  for (size_t i = 0; i < built.size(); ++i)
    user_check(dag.index_of(built[i]) >= 0, "dag JSON: ", op_label(ops, i), " is not reachable from the outputs");
  for (size_t i = 0; i < built.size(); ++i)
    user_check(dag.ops()[i] == built[i], "dag JSON: ", op_label(ops, i),
               " is out of order: the DAG built from the outputs puts it at position ", dag.index_of(built[i]));
  return dag;
}

}  // namespace tunectl::te
