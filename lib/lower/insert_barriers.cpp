#include "lower/insert_barriers.h"

#include <set>

#include "ir/error.h"
#include "ir/functor.h"
#include "lower/launch_dims.h"

namespace tunectl::lower {

namespace {

using namespace ir;
using BufferSet = std::set<const BufferNode*>;

// The shared buffers a statement reads and writes, anywhere inside it, and
// whether it holds an all-reduce.
struct SharedAccesses : IRVisitor {
  BufferSet reads, writes;
  bool all_reduce = false;

  void visit_AllReduce(const AllReduceNode*) override { all_reduce = true; }

  void visit_Load(const LoadNode* op) override {
    if (op->buffer->scope == MemScope::Shared) reads.insert(op->buffer.get());
    IRVisitor::visit_Load(op);
  }
  void visit_Store(const StoreNode* op) override {
    if (op->buffer->scope == MemScope::Shared) writes.insert(op->buffer.get());
    IRVisitor::visit_Store(op);
  }
};

bool intersects(const BufferSet& a, const BufferSet& b) {
  for (const BufferNode* x : a)
    if (b.count(x)) return true;
  return false;
}

// Shared accesses since the last barrier.
struct Pending {
  BufferSet reads, writes;
  void merge(const Pending& o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
  }
  bool operator==(const Pending&) const = default;
};

bool uses_any(const Expr& e, const std::set<const ExprNode*>& vars) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || vars.count(x.get()) > 0; });
  return found;
}

class BarrierPlanner {
 public:
  explicit BarrierPlanner(const LaunchDims& dims) : dims_(dims) {}

  // s rewritten with barriers; `pending` goes in as the state before s and
  // comes out as the state after it.
  Stmt plan(const Stmt& s, Pending& pending) {
    if (!is_uniform(s)) return as_a_whole(s, pending);
    if (s.kind() == StmtKind::For || s.kind() == StmtKind::IfThenElse || s.kind() == StmtKind::Allocate) {
      // A barrier as far out as it can go: once before a loop rather than
      // in every iteration.
      SharedAccesses a;
      a.visit(s);
      if (conflicts(a, pending)) {
        pending = {};
        Stmt inside = plan_inside(s, pending);
        return starts_with_barrier(inside) ? inside : make_seq({make_barrier(), inside});
      }
    }
    return plan_inside(s, pending);
  }

 private:
  static bool conflicts(const SharedAccesses& a, const Pending& pending) {
    return intersects(a.reads, pending.writes) || intersects(a.writes, pending.reads);
  }

  // Whether the first shared access or barrier that running s meets, on
  // every path, is a barrier (one placed inside at the start of a loop
  // that runs at least once): a barrier just before s would be redundant.
  bool starts_with_barrier(const Stmt& s) const {
    switch (s.kind()) {
      case StmtKind::Barrier: return true;
      case StmtKind::AllReduce: return synchronizes_block(s);
      case StmtKind::Allocate: return starts_with_barrier(s.as<AllocateNode>()->body);
      case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqNode>()->stmts) {
          if (!touches_shared_or_syncs(c)) continue;
          return starts_with_barrier(c);
        }
        return false;
      case StmtKind::For: {
        const auto* loop = s.as<ForNode>();
        const auto* extent = loop->extent.as<IntImmNode>();
        return is_uniform(s) && extent && extent->value > 0 && starts_with_barrier(loop->body);
      }
      default: return false;
    }
  }

  static bool touches_shared_or_syncs(const Stmt& s) {
    struct Finder : SharedAccesses {
      bool barrier = false;
      void visit_Barrier(const BarrierNode*) override { barrier = true; }
    } f;
    f.visit(s);
    return f.barrier || f.all_reduce || !f.reads.empty() || !f.writes.empty();
  }

  Stmt plan_inside(const Stmt& s, Pending& pending) {
    switch (s.kind()) {
      case StmtKind::Seq: {
        std::vector<Stmt> out;
        for (const Stmt& c : s.as<SeqNode>()->stmts) out.push_back(plan(c, pending));
        return make_seq(std::move(out));
      }
      case StmtKind::For: return plan_loop(s.as<ForNode>(), pending);
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        Pending else_pending = pending;
        Stmt then_case = plan(op->then_case, pending);
        Stmt else_case = op->else_case ? plan(op->else_case, else_pending) : Stmt();
        pending.merge(else_pending);
        return make_if(op->cond, then_case, else_case);
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        return make_allocate(op->buffer, plan(op->body, pending));
      }
      case StmtKind::Barrier:
        pending = {};
        return s;
      case StmtKind::AllReduce:
        if (synchronizes_block(s)) pending = {};
        return s;
      case StmtKind::Store: return as_a_whole(s, pending);
    }
    return s;
  }

  // Every thread of the block runs s the same number of times.
  bool is_uniform(const Stmt& s) const {
    if (const auto* loop = s.as<ForNode>()) {
      if (uses_any(loop->extent, thread_vars_) || uses_any(loop->min, thread_vars_)) return false;
      if (loop->for_kind != ForKind::ThreadBinding) return true;
      std::optional<HardwareIndex> hw = hardware_index(loop->thread_tag);
      if (!hw || hw->is_block) return true;  // vthread; blockIdx is the same in a whole block
      const auto* extent = loop->extent.as<IntImmNode>();
      return extent && extent->value == dims_.block[hw->dim];
    }
    if (const auto* branch = s.as<IfThenElseNode>()) return !uses_any(branch->cond, thread_vars_);
    return true;
  }

  // An all-reduce across more than one warp synchronizes the block (its
  // values pass through shared memory, tc_block_allreduce); within one warp
  // it is shuffles.
  bool synchronizes_block(const Stmt& s) const {
    return s.kind() == StmtKind::AllReduce && dims_.threads_per_block() > kWarpSize;
  }

  Stmt as_a_whole(const Stmt& s, Pending& pending) {
    SharedAccesses a;
    a.visit(s);
    user_check(!a.all_reduce, "an all-reduce where not every thread of the block runs (inside a threadIdx loop "
               "narrower than the block, or a branch on threadIdx): every thread must reach it");
    for (const BufferNode* b : a.writes) {
      user_check(!a.reads.count(b), "shared buffer ", b->name,
                 " is written and read where not every thread of the block runs (a threadIdx loop narrower than the "
                 "block, or a branch on threadIdx): no barrier can go between");
    }
    Stmt out = s;
    if (conflicts(a, pending)) {
      out = make_seq({make_barrier(), s});
      pending = {};
    }
    pending.reads.insert(a.reads.begin(), a.reads.end());
    pending.writes.insert(a.writes.begin(), a.writes.end());
    return out;
  }

  // The body is planned again from what its end leaves pending, until that
  // no longer changes (at most a few rounds: sets only grow).
  Stmt plan_loop(const ForNode* loop, Pending& pending) {
    const std::optional<HardwareIndex> hw =
        loop->for_kind == ForKind::ThreadBinding ? hardware_index(loop->thread_tag) : std::nullopt;
    const bool thread = hw && !hw->is_block;
    if (thread) thread_vars_.insert(loop->var.get());
    Pending entry = pending;
    Pending exit = entry;
    Stmt body = plan(loop->body, exit);
    // A loop bound to blockIdx/threadIdx runs its body once in each thread.
    for (bool iterates = !hw; iterates;) {
      Pending next_entry = entry;
      next_entry.merge(exit);
      Pending next_exit = next_entry;
      Stmt next_body = plan(loop->body, next_exit);
      const bool stable = next_exit == exit;
      body = next_body;
      exit = next_exit;
      iterates = !stable;
    }
    if (thread) thread_vars_.erase(loop->var.get());
    pending = exit;
    const auto* extent = loop->extent.as<IntImmNode>();
    if (!extent || extent->value <= 0) pending.merge(entry);  // the loop may run no iteration
    return make_for(loop->var, loop->min, loop->extent, loop->for_kind, body, loop->thread_tag);
  }

  LaunchDims dims_;
  std::set<const ExprNode*> thread_vars_;  // threadIdx loops around the statement
};

}  // namespace

LoweredFunc insert_barriers(LoweredFunc func) {
  BarrierPlanner planner(launch_dims(func));
  Pending pending;
  func.body = planner.plan(func.body, pending);
  return func;
}

}  // namespace tunectl::lower
