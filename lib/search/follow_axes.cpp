#include "search/follow_axes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <random>

#include "ir/eval_index.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/substitute.h"

namespace tunectl::search {

namespace {

using schedule::State;

// The index lists of every read of stage i's buffer by stage c, with the
// stages inlined into c substituted (their axes by the indices c reads them
// at).
std::vector<std::vector<ir::Expr>> reads_through_inlined(const State& s, int c, int i) {
  std::map<const ir::BufferNode*, int> inlined;
  for (int k = 0; k < static_cast<int>(s.stages.size()); ++k)
    if (s.stages[k].attach.kind == schedule::AttachKind::Inline) inlined[s.stages[k].op->buffer.get()] = k;
  const ir::Buffer& buffer = s.stages[i].op->buffer;
  std::vector<std::vector<ir::Expr>> out;
  std::function<void(const ir::Expr&)> visit = [&](const ir::Expr& body) {
    ir::post_order_visit(body, [&](const ir::Expr& e) {
      const auto* load = e.as<ir::LoadNode>();
      if (load == nullptr) return;
      if (load->buffer.same_as(buffer)) {
        out.push_back(load->indices);
        return;
      }
      auto it = inlined.find(load->buffer.get());
      if (it == inlined.end()) return;
      const te::TensorNode& producer = *s.stages[it->second].op;
      ir::VarMap<ir::Expr> at;
      for (size_t k = 0; k < producer.axes.size(); ++k) at[producer.axes[k].var] = load->indices[k];
      visit(ir::substitute(producer.body, at));
    });
  };
  visit(s.stages[c].op->body);
  return out;
}

bool same_indices(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const ir::Expr& x, const ir::Expr& y) {
           return ir::structural_equal(x, y);
         });
}

// Whether an index loads a value (a gather): no layout maps it.
bool loads_in(const std::vector<ir::Expr>& index) {
  bool found = false;
  for (const ir::Expr& e : index)
    ir::post_order_visit(e, [&](const ir::Expr& x) { found = found || x.kind() == ir::ExprKind::Load; });
  return found;
}

}  // namespace

std::optional<FollowPlan> follow_axes(const State& s, int i, int c) {
  const schedule::Stage& out = s.stages[c];
  const te::TensorNode& op = *out.op;
  const bool untouched = op.reduce() == nullptr && out.relations.empty() && out.leaves.size() == op.axes.size() &&
                         std::all_of(out.leaves.begin(), out.leaves.end(), [&](int id) {
                           return out.iters[id].annotation == schedule::IterAnnotation::None;
                         });
  if (!untouched) return std::nullopt;
  const std::vector<std::vector<ir::Expr>> reads = reads_through_inlined(s, c, i);
  if (reads.empty() || loads_in(reads[0])) return std::nullopt;
  for (const std::vector<ir::Expr>& r : reads)
    if (!same_indices(r, reads[0])) return std::nullopt;
  const std::vector<ir::Expr>& index = reads[0];
  const std::vector<int64_t>& shape = s.stages[i].op->shape();
  const int m = static_cast<int>(op.axes.size());
  const int n = static_cast<int>(shape.size());
  if (n == 0 || static_cast<int>(index.size()) != n) return std::nullopt;

  // Where c reads i at a point of its axes.
  auto read_at = [&](const std::vector<int64_t>& point) {
    ir::IndexEnv env;
    for (int a = 0; a < m; ++a) env[op.axes[a].var.node()] = point[a];
    std::vector<int64_t> at;
    for (const ir::Expr& e : index) at.push_back(ir::eval_index(e, env));
    return at;
  };
  // Each axis of c longer than 1 is one or two digits (pieces), innermost
  // first, each moving one axis of i by a fixed step.
  struct Piece {
    int axis;         // of c
    int64_t extent;
    int64_t radix;    // of the digit in c's axis
    int target;       // axis of i
    int64_t step;
  };
  std::vector<Piece> pieces;
  auto expected_at = [&](const std::vector<int64_t>& point) {
    std::vector<int64_t> at(n, 0);
    for (const Piece& p : pieces) at[p.target] += point[p.axis] / p.radix % p.extent * p.step;
    return at;
  };
  const std::vector<int64_t> origin(m, 0);
  if (read_at(origin) != std::vector<int64_t>(n, 0)) return std::nullopt;
  std::vector<int> piece_count(m, 0);
  for (int a = 0; a < m; ++a) {
    const int64_t extent = op.axes[a].extent;
    std::vector<int64_t> point = origin;
    for (int64_t radix = 1; radix < extent;) {
      if (++piece_count[a] > 2) return std::nullopt;
      point[a] = radix;
      const std::vector<int64_t> next = read_at(point);
      Piece piece{a, extent / radix, radix, -1, 0};
      for (int j = 0; j < n; ++j) {
        if (next[j] == 0) continue;
        if (piece.target >= 0 || next[j] < 0) return std::nullopt;
        piece.target = j;
        piece.step = next[j];
      }
      if (piece.target < 0) return std::nullopt;
      // The digit ends where the step stops holding.
      for (int64_t u = 2; u < extent / radix; ++u) {
        point[a] = u * radix;
        std::vector<int64_t> digit(n, 0);
        digit[piece.target] = u * piece.step;
        if (read_at(point) != digit) {
          piece.extent = u;
          break;
        }
      }
      if ((extent / radix) % piece.extent != 0) return std::nullopt;
      radix *= piece.extent;
      pieces.push_back(piece);
    }
    for (int64_t v = 0; v < extent; ++v) {
      point[a] = v;
      if (read_at(point) != expected_at(point)) return std::nullopt;
    }
  }
  // c's leaves once its split axes are split: each axis's pieces outermost
  // first, an extent-1 axis one leaf.
  FollowPlan plan;
  plan.split_lengths.resize(m);
  std::vector<int> first_leaf(m);
  for (int a = 0, leaf = 0; a < m; ++a) {
    first_leaf[a] = leaf;
    leaf += std::max(1, piece_count[a]);
  }
  std::vector<int> leaf_of(pieces.size());
  for (size_t k = 0; k < pieces.size(); ++k) {
    const Piece& p = pieces[k];
    int inner = 0;  // pieces of the same axis inside this one
    for (size_t q = 0; q < pieces.size(); ++q) inner += pieces[q].axis == p.axis && pieces[q].radix < p.radix;
    leaf_of[k] = first_leaf[p.axis] + piece_count[p.axis] - 1 - inner;
    // A split axis: its outer part, then its inner piece.
    if (piece_count[p.axis] == 2 && inner == 0) plan.split_lengths[p.axis] = {p.extent};
  }
  // Each axis of i covered by its pieces as digits of a mixed radix.
  plan.groups.resize(n);
  std::vector<std::vector<const Piece*>> covering(n);
  for (const Piece& p : pieces) covering[p.target].push_back(&p);
  std::vector<int> unit_leaves;  // c's extent-1 axes, in order
  for (int a = 0; a < m; ++a)
    if (piece_count[a] == 0) unit_leaves.push_back(first_leaf[a]);
  size_t next_unit = 0;
  for (int j = 0; j < n; ++j) {
    std::vector<const Piece*>& g = covering[j];
    std::sort(g.begin(), g.end(), [](const Piece* x, const Piece* y) { return x->step > y->step; });
    if (shape[j] == 1) {
      if (next_unit == unit_leaves.size()) return std::nullopt;
      plan.groups[j].push_back(unit_leaves[next_unit++]);
      continue;
    }
    int64_t radix = 1;
    for (auto it = g.rbegin(); it != g.rend(); ++it) {
      if ((*it)->step != radix) return std::nullopt;
      radix *= (*it)->extent;
    }
    if (radix != shape[j]) return std::nullopt;
    for (const Piece* p : g) plan.groups[j].push_back(leaf_of[p - pieces.data()]);
  }
  plan.groups[0].insert(plan.groups[0].begin(), unit_leaves.begin() + static_cast<std::ptrdiff_t>(next_unit),
                        unit_leaves.end());
  // The pieces add up across axes: checked at random points of c.
  std::mt19937_64 rng(0);
  for (int trial = 0; trial < 32; ++trial) {
    std::vector<int64_t> point(m);
    for (int a = 0; a < m; ++a) point[a] = std::uniform_int_distribution<int64_t>(0, op.axes[a].extent - 1)(rng);
    if (read_at(point) != expected_at(point)) return std::nullopt;
  }
  return plan;
}

void apply_follow_axes(State& s, int c, const FollowPlan& plan) {
  // Last axis first, so the positions of the earlier ones stay.
  for (int a = static_cast<int>(plan.split_lengths.size()) - 1; a >= 0; --a)
    if (!plan.split_lengths[a].empty())
      s.apply(schedule::SplitStep{c, a, s.stages[c].op->axes[a].extent, plan.split_lengths[a], true});
  std::vector<int> order;
  for (const std::vector<int>& g : plan.groups) order.insert(order.end(), g.begin(), g.end());
  if (!std::is_sorted(order.begin(), order.end())) s.apply(schedule::ReorderStep{c, order});
  // Last group first, so the positions of the earlier ones stay.
  int end = static_cast<int>(order.size());
  for (auto g = plan.groups.rbegin(); g != plan.groups.rend(); ++g) {
    const int begin = end - static_cast<int>(g->size());
    if (g->size() > 1) {
      std::vector<int> positions;
      for (int p = begin; p < end; ++p) positions.push_back(p);
      s.apply(schedule::FuseStep{c, positions});
    }
    end = begin;
  }
}

}  // namespace tunectl::search
