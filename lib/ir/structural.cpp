#include "ir/structural.h"

#include <bit>
#include <cstring>
#include <functional>

#include "ir/error.h"

namespace tunectl::ir {

namespace {

bool equal_lists(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!structural_equal(a[i], b[i])) return false;
  }
  return true;
}

template <typename Node>
bool equal_binary(const Expr& a, const Expr& b) {
  const auto* x = static_cast<const Node*>(a.get());
  const auto* y = static_cast<const Node*>(b.get());
  return structural_equal(x->a, y->a) && structural_equal(x->b, y->b);
}

void mix(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

}  // namespace

bool structural_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b) return false;
  if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
    case ExprKind::IntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm: {
      // Bitwise, so that NaN equals itself and 0.0 differs from -0.0.
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case ExprKind::Var:
      return false;  // same_as failed above
#define TUNECTL_EQ_BINARY(name) \
  case ExprKind::name:          \
    return equal_binary<name##Node>(a, b);
      TUNECTL_BINARY_NODES(TUNECTL_EQ_BINARY)
#undef TUNECTL_EQ_BINARY
    case ExprKind::Not:
      return structural_equal(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return structural_equal(x->cond, y->cond) && structural_equal(x->true_value, y->true_value) &&
             structural_equal(x->false_value, y->false_value);
    }
    case ExprKind::Cast:
      return structural_equal(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Call: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->func == y->func && equal_lists(x->args, y->args);
    }
    case ExprKind::Load: {
      const auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      return x->buffer.same_as(y->buffer) && equal_lists(x->indices, y->indices);
    }
    case ExprKind::Reduce: {
      const auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
      if (x->combiner != y->combiner || x->axes.size() != y->axes.size()) return false;
      for (size_t i = 0; i < x->axes.size(); ++i) {
        const auto &p = x->axes[i], &q = y->axes[i];
        if (!p.var.same_as(q.var) || p.extent != q.extent || p.kind != q.kind) return false;
      }
      return structural_equal(x->source, y->source);
    }
  }
  internal_fail("bad expr kind");
}

size_t structural_hash(const Expr& e) {
  if (!e) return 0;
  size_t h = static_cast<size_t>(e.kind()) * 131 + static_cast<size_t>(e.dtype());
  switch (e.kind()) {
    case ExprKind::IntImm:
      mix(h, std::hash<int64_t>()(e.as<IntImmNode>()->value));
      break;
    case ExprKind::FloatImm:
      mix(h, std::hash<uint64_t>()(std::bit_cast<uint64_t>(e.as<FloatImmNode>()->value)));
      break;
    case ExprKind::Var:
      mix(h, std::hash<const void*>()(e.get()));
      break;
#define TUNECTL_HASH_BINARY(name)                             \
  case ExprKind::name: {                                      \
    const auto* op = static_cast<const name##Node*>(e.get()); \
    mix(h, structural_hash(op->a));                           \
    mix(h, structural_hash(op->b));                           \
    break;                                                    \
  }
      TUNECTL_BINARY_NODES(TUNECTL_HASH_BINARY)
#undef TUNECTL_HASH_BINARY
    case ExprKind::Not:
      mix(h, structural_hash(e.as<NotNode>()->a));
      break;
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      mix(h, structural_hash(op->cond));
      mix(h, structural_hash(op->true_value));
      mix(h, structural_hash(op->false_value));
      break;
    }
    case ExprKind::Cast:
      mix(h, structural_hash(e.as<CastNode>()->value));
      break;
    case ExprKind::Call: {
      const auto* op = e.as<CallNode>();
      mix(h, static_cast<size_t>(op->func));
      for (const auto& a : op->args) mix(h, structural_hash(a));
      break;
    }
    case ExprKind::Load: {
      const auto* op = e.as<LoadNode>();
      mix(h, std::hash<const void*>()(op->buffer.get()));
      for (const auto& i : op->indices) mix(h, structural_hash(i));
      break;
    }
    case ExprKind::Reduce: {
      const auto* op = e.as<ReduceNode>();
      mix(h, static_cast<size_t>(op->combiner));
      for (const auto& ax : op->axes) {
        mix(h, std::hash<const void*>()(ax.var.get()));
        mix(h, std::hash<int64_t>()(ax.extent));
      }
      mix(h, structural_hash(op->source));
      break;
    }
  }
  return h;
}

}  // namespace tunectl::ir
