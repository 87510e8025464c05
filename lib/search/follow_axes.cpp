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

std::optional<std::vector<std::vector<int>>> follow_axes(const State& s, int i, int c) {
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
  if (static_cast<int>(index.size()) != n) return std::nullopt;

  // Where c reads i at a point of its axes.
  auto read_at = [&](const std::vector<int64_t>& point) {
    ir::IndexEnv env;
    for (int a = 0; a < m; ++a) env[op.axes[a].var.node()] = point[a];
    std::vector<int64_t> at;
    for (const ir::Expr& e : index) at.push_back(ir::eval_index(e, env));
    return at;
  };
  // Each axis of c longer than 1 must move one axis of i by a fixed step.
  std::vector<int> axis_of(m, -1);
  std::vector<int64_t> step(m, 0);
  const std::vector<int64_t> origin(m, 0);
  if (read_at(origin) != std::vector<int64_t>(n, 0)) return std::nullopt;
  for (int a = 0; a < m; ++a) {
    const int64_t extent = op.axes[a].extent;
    if (extent == 1) continue;
    std::vector<int64_t> point = origin;
    point[a] = 1;
    const std::vector<int64_t> next = read_at(point);
    for (int j = 0; j < n; ++j) {
      if (next[j] == 0) continue;
      if (axis_of[a] >= 0 || next[j] < 0) return std::nullopt;
      axis_of[a] = j;
      step[a] = next[j];
    }
    if (axis_of[a] < 0) return std::nullopt;
    for (int64_t v = 2; v < extent; ++v) {
      point[a] = v;
      std::vector<int64_t> expected(n, 0);
      expected[axis_of[a]] = v * step[a];
      if (read_at(point) != expected) return std::nullopt;
    }
  }
  // Each axis of i covered by its axes of c as digits of a mixed radix.
  std::vector<std::vector<int>> groups(n);
  std::vector<int> unit_axes;  // c's extent-1 axes, in order
  for (int a = 0; a < m; ++a) (axis_of[a] >= 0 ? groups[axis_of[a]] : unit_axes).push_back(a);
  size_t next_unit = 0;
  for (int j = 0; j < n; ++j) {
    std::vector<int>& g = groups[j];
    std::sort(g.begin(), g.end(), [&](int x, int y) { return step[x] > step[y]; });
    if (shape[j] == 1) {
      if (next_unit == unit_axes.size()) return std::nullopt;
      g.push_back(unit_axes[next_unit++]);
      continue;
    }
    int64_t radix = 1;
    for (auto it = g.rbegin(); it != g.rend(); ++it) {
      if (step[*it] != radix) return std::nullopt;
      radix *= op.axes[*it].extent;
    }
    if (radix != shape[j]) return std::nullopt;
  }
  if (n == 0) return std::nullopt;
  groups[0].insert(groups[0].begin(), unit_axes.begin() + static_cast<std::ptrdiff_t>(next_unit), unit_axes.end());
  // The steps add up across axes: checked at random points of c.
  std::mt19937_64 rng(0);
  for (int trial = 0; trial < 32; ++trial) {
    std::vector<int64_t> point(m);
    for (int a = 0; a < m; ++a) point[a] = std::uniform_int_distribution<int64_t>(0, op.axes[a].extent - 1)(rng);
    std::vector<int64_t> expected(n, 0);
    for (int a = 0; a < m; ++a)
      if (axis_of[a] >= 0) expected[axis_of[a]] += point[a] * step[a];
    if (read_at(point) != expected) return std::nullopt;
  }
  return groups;
}

void apply_follow_axes(State& s, int c, const std::vector<std::vector<int>>& groups) {
  std::vector<int> order;
  for (const std::vector<int>& g : groups) order.insert(order.end(), g.begin(), g.end());
  if (!std::is_sorted(order.begin(), order.end())) s.apply(schedule::ReorderStep{c, order});
  // Last group first, so the positions of the earlier ones stay.
  int end = static_cast<int>(order.size());
  for (auto g = groups.rbegin(); g != groups.rend(); ++g) {
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
