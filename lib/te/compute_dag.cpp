#include "te/compute_dag.h"

#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/printer.h"
#include "ir/substitute.h"

namespace tunectl::te {

namespace {

// Post-order DFS from the outputs: inputs come before readers, and ties break
// by first visit, so the order depends only on the structure.
void visit_topo(const Tensor& t, std::unordered_map<const TensorNode*, int>& state, std::vector<Tensor>& order) {
  auto [it, inserted] = state.emplace(t.get(), 1);
  if (!inserted) {
    internal_check(it->second == 2, "cycle through tensor '", t->name, "'");
    return;
  }
  for (const auto& in : t->inputs) visit_topo(in, state, order);
  state[t.get()] = 2;
  order.push_back(t);
}

// Float arithmetic nodes of e (each counts one flop per evaluation).
int64_t count_float_ops(const ir::Expr& e) {
  int64_t n = 0;
  ir::post_order_visit(e, [&](const ir::Expr& x) {
    if (!ir::is_float(x.dtype())) return;
    switch (x.kind()) {
      case ir::ExprKind::Add:
      case ir::ExprKind::Sub:
      case ir::ExprKind::Mul:
      case ir::ExprKind::Div:
      case ir::ExprKind::Min:
      case ir::ExprKind::Max:
      case ir::ExprKind::Call: ++n; break;
      default: break;
    }
  });
  return n;
}

std::string shape_text(const TensorNode& t) {
  std::ostringstream os;
  os << t.name << "[" << ir::to_string(t.dtype()) << " ";
  for (size_t i = 0; i < t.shape().size(); ++i) os << (i ? "x" : "") << t.shape()[i];
  os << "]";
  return os.str();
}

// The body of t with its spatial variables renamed ax0, ax1, ... and its
// reduce variables r0, r1, ...: the names a separately built copy also gets.
std::string positional_body(const TensorNode& t) {
  ir::VarMap<ir::Expr> map;
  for (size_t i = 0; i < t.axes.size(); ++i) map[t.axes[i].var] = ir::Var("ax" + std::to_string(i));
  const ir::ReduceNode* r = t.reduce();
  if (!r) return ir::to_string(ir::substitute(t.body, map));
  std::vector<ir::IterVar> axes;
  for (size_t i = 0; i < r->axes.size(); ++i) {
    ir::Var v("r" + std::to_string(i));
    map[r->axes[i].var] = v;
    axes.push_back(ir::IterVar{v, r->axes[i].extent, ir::IterKind::Reduce});
  }
  return ir::to_string(ir::make_reduce(r->combiner, ir::substitute(r->source, map), std::move(axes)));
}

}  // namespace

ComputeDAG::ComputeDAG(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  user_check(!outputs_.empty(), "a compute DAG needs at least one output");
  std::unordered_map<const TensorNode*, int> state;
  for (const auto& t : outputs_) {
    user_check(t != nullptr, "null output tensor in a compute DAG");
    visit_topo(t, state, ops_);
  }
}

std::vector<Tensor> ComputeDAG::placeholders() const {
  std::vector<Tensor> out;
  for (const auto& t : ops_)
    if (t->is_placeholder()) out.push_back(t);
  return out;
}

int ComputeDAG::index_of(const Tensor& t) const {
  for (size_t i = 0; i < ops_.size(); ++i)
    if (ops_[i].get() == t.get()) return static_cast<int>(i);
  return -1;
}

std::vector<int> ComputeDAG::consumers(int i) const {
  internal_check(i >= 0 && i < static_cast<int>(ops_.size()), "consumers of op ", i, " out of range");
  std::vector<int> out;
  for (size_t j = 0; j < ops_.size(); ++j)
    for (const auto& in : ops_[j]->inputs)
      if (in.get() == ops_[i].get()) {
        out.push_back(static_cast<int>(j));
        break;
      }
  return out;
}

bool ComputeDAG::is_output(int i) const {
  for (const auto& t : outputs_)
    if (t.get() == ops_.at(i).get()) return true;
  return false;
}

double ComputeDAG::flop_count() const {
  double total = 0;
  for (const auto& t : ops_) {
    if (t->is_placeholder()) continue;
    double points = static_cast<double>(t->buffer->num_elements());
    int64_t per_point = 0;
    if (const ir::ReduceNode* r = t->reduce()) {
      for (const auto& a : r->axes) points *= static_cast<double>(a.extent);
      // The combiner is one operation per reduce point, like the source's.
      per_point = count_float_ops(r->source) + (ir::is_float(r->dtype) ? 1 : 0);
    } else {
      per_point = count_float_ops(t->body);
    }
    total += points * static_cast<double>(per_point);
  }
  return total;
}

std::string ComputeDAG::canonical_text() const {
  std::ostringstream os;
  for (const auto& t : ops_) {
    if (t->is_placeholder()) {
      os << "placeholder " << shape_text(*t) << (t->constant ? " constant" : "") << "\n";
      continue;
    }
    os << "compute " << shape_text(*t) << " tag=" << t->tag << " = " << positional_body(*t) << "\n";
  }
  os << "outputs";
  for (const auto& t : outputs_) os << " " << t->name;
  os << "\n";
  return os.str();
}

std::string ComputeDAG::workload_key() const { return stable_hash_hex(canonical_text()); }

std::string stable_hash_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace tunectl::te
