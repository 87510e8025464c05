#include "lower/loop_nest.h"

#include <functional>
#include <map>
#include <unordered_map>

#include "ir/const_bound.h"
#include "ir/error.h"
#include "ir/functor.h"
#include "ir/substitute.h"

namespace tunectl::lower {

namespace {

using namespace ir;

Expr combine(ReduceOp op, Expr a, Expr b) {
  switch (op) {
    case ReduceOp::Sum: return a + b;
    case ReduceOp::Prod: return a * b;
    case ReduceOp::Max: return make_max(a, b);
    case ReduceOp::Min: return make_min(a, b);
  }
  internal_fail("unknown reduce op");
}

Expr conjunction(const std::vector<Expr>& conds) {
  Expr all;
  for (const Expr& c : conds) all = all ? make_and(all, c) : c;
  return all;
}

Stmt guarded(const std::vector<Expr>& conds, Stmt body) {
  Expr c = conjunction(conds);
  return c ? make_if(c, std::move(body)) : body;
}

Stmt make_loop(const Loop& l, Stmt body) {
  return make_for(l.var, make_int(0), make_int(l.extent), l.kind, std::move(body), l.thread_tag);
}

// The statements of s once its unrolled loops are replicated: the size of
// the code it becomes, whose compile time grows faster than linearly in one
// basic block. A vectorized loop's body counts once (one vector statement
// each), as does a loop that stays a loop.
double unrolled_statements(const Stmt& s) {
  if (!s) return 0;  // an IfThenElse without else
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* op = s.as<ForNode>();
      const int64_t* extent = as_const_int(op->extent);
      double body = unrolled_statements(op->body);
      return op->for_kind == ForKind::Unrolled && extent ? static_cast<double>(*extent) * body : body;
    }
    case StmtKind::Store:
    case StmtKind::AllReduce: return 1;
    case StmtKind::Allocate: return unrolled_statements(s.as<AllocateNode>()->body);
    case StmtKind::Seq: {
      double sum = 0;
      for (const Stmt& x : s.as<SeqNode>()->stmts) sum += unrolled_statements(x);
      return sum;
    }
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      return unrolled_statements(op->then_case) + unrolled_statements(op->else_case);
    }
    case StmtKind::Barrier: return 0;
  }
  internal_fail("unknown statement kind");
}

// An auto-unrolled loop around other stages' computations stays unrolled
// only while the code it replicates, theirs included, fits its stage's
// auto_unroll_max_step. Unrolling a 14 x 7 tile loop around a convolution's
// fully unrolled 146-statement reduction made one basic block that took
// LLVM 90 s to compile.
Loop within_unroll_budget(Loop l, const Stmt& body) {
  if (l.unroll_budget == 0) return l;
  if (static_cast<double>(l.extent) * unrolled_statements(body) > static_cast<double>(l.unroll_budget))
    l.kind = ForKind::Serial;
  return l;
}

// Redirects loads of attached stages' op buffers to their region buffers.
class RegionLoads : public IRMutator {
 public:
  void add(const Buffer& from, const StageInfo& to) { map_[from.get()] = &to; }

 protected:
  Expr mutate_Load(const Expr& e, const LoadNode* op) override {
    Expr loaded = IRMutator::mutate_Load(e, op);
    auto it = map_.find(op->buffer.get());
    if (it == map_.end()) return loaded;
    const StageInfo& to = *it->second;
    const auto* load = loaded.as<LoadNode>();
    std::vector<Expr> idx;
    // A packed constant holds the region at region_min as block
    // region_min / region_extent (prepack.h).
    if (to.packed)
      for (size_t d = 0; d < load->indices.size(); ++d) idx.push_back(to.region_min[d] / make_int(to.region_extent[d]));
    for (size_t d = 0; d < load->indices.size(); ++d) idx.push_back(load->indices[d] - mutate(to.region_min[d]));
    return make_load(to.packed ? to.packed : to.buffer, idx);
  }

 private:
  std::unordered_map<const BufferNode*, const StageInfo*> map_;
};

class NestBuilder {
 public:
  NestBuilder(const schedule::State& state, const std::vector<StageInfo>& stages) : state_(state), stages_(stages) {
    for (size_t s = 0; s < stages.size(); ++s) {
      const schedule::Stage& stage = state.stages[s];
      if (!stages[s].active) continue;
      // A prepacked stage is read from its packed argument, never computed.
      if (stage.prepacked) loads_.add(stage.op->buffer, stages[s]);
      if (!stage.prepacked && stage.attach.kind == schedule::AttachKind::Root && !stage.storage_order.empty())
        loads_.add(stage.op->buffer, stages[s]);
      if (stage.prepacked || stage.attach.kind != schedule::AttachKind::Iter) continue;
      int t = stage.attach.target_stage;
      attached_[{t, state.stages[t].leaf_position(stage.attach.target_iter)}].push_back(static_cast<int>(s));
      loads_.add(stage.op->buffer, stages[s]);
    }
  }

  Stmt build_root() {
    std::vector<Stmt> body;
    for (size_t s = 0; s < stages_.size(); ++s) {
      if (stages_[s].active && !state_.stages[s].prepacked && state_.stages[s].attach.kind == schedule::AttachKind::Root)
        body.push_back(build(static_cast<int>(s)));
    }
    Stmt all = make_seq(body);
    // Root intermediates live for the whole kernel: their producers and
    // readers may sit anywhere in it.
    for (size_t s = stages_.size(); s-- > 0;) {
      const StageInfo& info = stages_[s];
      if (info.active && !info.is_output && !info.packed && state_.stages[s].attach.kind == schedule::AttachKind::Root)
        all = make_allocate(info.buffer, all);
    }
    return all;
  }

 private:
  // Guards that keep every computed point inside the stage's region buffer
  // and its domain, omitting those the loop ranges already prove. A region
  // may start at a loaded value (a gather's), so its loads are redirected too.
  std::vector<Expr> guards(const StageInfo& info, const VarMap<IntBound>& bounds, bool spatial_only) {
    std::vector<Expr> conds;
    for (size_t r = 0; r < info.root_vars.size(); ++r) {
      bool spatial = static_cast<int>(r) < info.num_spatial;
      if (!spatial && spatial_only) break;
      const Expr& local = info.local_root_values[r];
      int64_t domain = info.domain[r];
      if (!spatial || is_const_int(info.region_min[r], 0)) {
        int64_t limit = spatial ? std::min(domain, info.region_extent[r]) : domain;
        if (const_int_bound(local, bounds).max >= limit) conds.push_back(local < make_int(limit));
        continue;
      }
      if (const_int_bound(local, bounds).max >= info.region_extent[r])
        conds.push_back(local < make_int(info.region_extent[r]));
      Expr abs = info.region_min[r] + local;
      IntBound b = const_int_bound(abs, bounds);
      if (b.min < 0) conds.push_back(abs >= make_int(0));
      if (b.max >= domain) conds.push_back(abs < make_int(domain));
    }
    for (const InnerRange& r : info.inner_ranges) {
      if (spatial_only && r.kind == IterKind::Reduce) continue;
      if (const_int_bound(r.value, bounds).max >= r.extent) conds.push_back(r.value < make_int(r.extent));
    }
    for (Expr& c : conds) c = loads_.mutate(c);
    return conds;
  }

  // Loop pos of stage s around body and the stages attached at it;
  // holds_others says whether a loop inside (or this one) holds attached
  // stages, and is updated.
  Stmt loop_at(int s, int pos, Stmt body, bool& holds_others) {
    holds_others = holds_others || attached_.count({s, pos});
    Stmt inner = with_attached(s, pos, std::move(body));
    const Loop& own = stages_[s].loops[pos];
    Loop loop = holds_others ? within_unroll_budget(own, inner) : own;
    return make_loop(loop, std::move(inner));
  }

  Stmt with_attached(int s, int pos, Stmt body) {
    auto it = attached_.find({s, pos});
    if (it == attached_.end()) return body;
    std::vector<Stmt> seq;
    for (int a : it->second) seq.push_back(build(a));
    seq.push_back(std::move(body));
    Stmt all = make_seq(seq);
    for (auto a = it->second.rbegin(); a != it->second.rend(); ++a) all = make_allocate(stages_[*a].buffer, all);
    return all;
  }

  Stmt build(int s) {
    const StageInfo& info = stages_[s];
    const schedule::Stage& stage = state_.stages[s];
    VarMap<IntBound> bounds;
    for (const Loop& l : info.enclosing) bounds[l.var] = loop_bound(0, l.extent);
    for (const Loop& l : info.loops) bounds[l.var] = loop_bound(0, l.extent);

    VarMap<Expr> roots;
    for (size_t r = 0; r < info.root_vars.size(); ++r) {
      bool spatial = static_cast<int>(r) < info.num_spatial;
      bool at_zero = !spatial || is_const_int(info.region_min[r], 0);
      roots[info.root_vars[r]] = at_zero ? info.local_root_values[r] : info.region_min[r] + info.local_root_values[r];
    }
    std::vector<Expr> store_idx(info.local_root_values.begin(), info.local_root_values.begin() + info.num_spatial);
    const auto* reduce = info.body.as<ReduceNode>();
    Expr value = loads_.mutate(substitute(reduce ? reduce->source : info.body, roots));

    int n = static_cast<int>(info.loops.size());
    bool holds_others = false;
    if (!reduce) {
      Stmt cur = guarded(guards(info, bounds, true), make_store(info.buffer, store_idx, value));
      for (int pos = n - 1; pos >= 0; --pos) cur = loop_at(s, pos, cur, holds_others);
      return cur;
    }

    int first_reduce = n;
    for (int pos = 0; pos < n && first_reduce == n; ++pos)
      if (stage.leaf(pos).kind == IterKind::Reduce) first_reduce = pos;
    for (int pos = first_reduce; pos < n; ++pos)
      if (stage.leaf(pos).kind == IterKind::Reduce && binds_threads(info.loops[pos]))
        return build_cross_thread(s, bounds, value, store_idx, first_reduce, reduce);

    Expr updated = combine(reduce->combiner, make_load(info.buffer, store_idx), value);
    Stmt cur = guarded(guards(info, bounds, false), make_store(info.buffer, store_idx, updated));
    Stmt init = make_init(info, stage, bounds, store_idx, first_reduce, reduce);
    if (first_reduce == n) cur = make_seq({init, cur});
    for (int pos = n - 1; pos >= 0; --pos) {
      cur = loop_at(s, pos, cur, holds_others);
      if (pos == first_reduce) cur = make_seq({init, cur});
    }
    return cur;
  }

  static bool binds_threads(const Loop& l) {
    return l.kind == ForKind::ThreadBinding && l.thread_tag.rfind("blockIdx.", 0) != 0;
  }

  // A reduction with a reduce loop bound to threadIdx.x: each thread of the
  // block accumulates its share of every point in a local buffer (`partial`,
  // one element per point of the spatial loops inside the first reduce
  // loop), an AllReduce combines the threads' shares, and the stage's buffer
  // gets the result: every thread's own copy, or, for a buffer the block's
  // threads share (an output, a shared stage), one thread's store. Every
  // thread of the block must reach the AllReduce, so the stage may have no
  // other thread binding, nor be computed inside one.
  Stmt build_cross_thread(int s, const VarMap<IntBound>& bounds, const Expr& value,
                          const std::vector<Expr>& store_idx, int first_reduce, const ReduceNode* reduce) {
    const StageInfo& info = stages_[s];
    const schedule::Stage& stage = state_.stages[s];
    const std::string& name = stage.op->name;
    const DType t = reduce->dtype;
    user_check(reduces_across_threads(t), "stage ", name, " reduces ", to_string(t),
               " across threads (only float32, float64, int32 and int64)");
    for (const Loop& l : info.enclosing) {
      user_check(!binds_threads(l), "stage ", name, " reduces across threads inside loop ", l.var.name(),
                 " bound to ", l.thread_tag, " (every thread of the block takes part: compute it outside the "
                 "thread loops)");
    }
    const int n = static_cast<int>(info.loops.size());
    int bound = -1;
    for (int pos = 0; pos < n; ++pos) {
      if (!binds_threads(info.loops[pos])) continue;
      user_check(bound < 0 && stage.leaf(pos).kind == IterKind::Reduce && info.loops[pos].thread_tag == "threadIdx.x",
                 "stage ", name, " reduces across threads, so only one of its reduce loops may be bound to a thread "
                 "index (threadIdx.x); ", info.loops[pos].var.name(), " is bound to ", info.loops[pos].thread_tag);
      bound = pos;
    }
    std::vector<int64_t> shape;
    std::vector<Expr> partial_idx;
    for (int pos = first_reduce + 1; pos < n; ++pos) {
      if (stage.leaf(pos).kind == IterKind::Reduce) continue;
      shape.push_back(info.loops[pos].extent);
      partial_idx.push_back(info.loops[pos].var);
    }
    if (shape.empty()) {
      shape.push_back(1);
      partial_idx.push_back(make_int(0));
    }
    const Buffer partial(name + ".partial", t, shape, MemScope::Local);
    Expr updated = combine(reduce->combiner, make_load(partial, partial_idx), value);
    Stmt cur = guarded(guards(info, bounds, false), make_store(partial, partial_idx, updated));
    bool holds_others = false;
    for (int pos = n - 1; pos >= first_reduce; --pos) cur = loop_at(s, pos, cur, holds_others);

    const Expr identity = reduce_identity(reduce->combiner, t);
    Stmt init = over_inner_spatial(info, stage, first_reduce, [&](const VarMap<Expr>& fresh) {
      return make_store(partial, substitute_all(partial_idx, fresh), identity);
    });
    const bool one_store = info.is_output || info.buffer->scope == MemScope::Shared;
    Stmt finish = over_inner_spatial(info, stage, first_reduce, [&](const VarMap<Expr>& fresh) {
      const std::vector<Expr> idx = substitute_all(partial_idx, fresh);
      std::vector<Expr> conds;
      for (const Expr& c : guards(info, bounds, true)) conds.push_back(substitute(c, fresh));
      Stmt store = guarded(conds, make_store(info.buffer, substitute_all(store_idx, fresh), make_load(partial, idx)));
      if (one_store) store = make_for(Var("one_thread"), make_int(0), make_int(1), ForKind::ThreadBinding, store,
                                      "threadIdx.x");
      return make_seq({make_all_reduce(reduce->combiner, partial, idx), store});
    });
    cur = make_allocate(partial, make_seq({init, cur, finish}));
    for (int pos = first_reduce - 1; pos >= 0; --pos) cur = loop_at(s, pos, cur, holds_others);
    return cur;
  }

  // identity stores over the spatial loops nested inside the outermost
  // reduce loop.
  Stmt make_init(const StageInfo& info, const schedule::Stage& stage, const VarMap<IntBound>& bounds,
                 const std::vector<Expr>& store_idx, int first_reduce, const ReduceNode* reduce) {
    return over_inner_spatial(info, stage, first_reduce, [&](const VarMap<Expr>& fresh) {
      std::vector<Expr> conds;
      for (const Expr& c : guards(info, bounds, true)) conds.push_back(substitute(c, fresh));
      return guarded(conds, make_store(info.buffer, substitute_all(store_idx, fresh),
                                       reduce_identity(reduce->combiner, reduce->dtype)));
    });
  }

  // body(fresh) inside copies of the spatial loops nested inside the
  // outermost reduce loop, with fresh variables (`fresh` maps the loops' own
  // to them), keeping the loops' kinds.
  static Stmt over_inner_spatial(const StageInfo& info, const schedule::Stage& stage, int first_reduce,
                                 const std::function<Stmt(const VarMap<Expr>&)>& body) {
    VarMap<Expr> fresh;
    std::vector<Loop> loops;
    for (int pos = first_reduce + 1; pos < static_cast<int>(info.loops.size()); ++pos) {
      if (stage.leaf(pos).kind == IterKind::Reduce) continue;
      Loop l = info.loops[pos];
      l.var = Var(l.var.name());
      fresh[info.loops[pos].var] = l.var;
      loops.push_back(l);
    }
    Stmt cur = body(fresh);
    for (auto l = loops.rbegin(); l != loops.rend(); ++l) cur = make_loop(*l, cur);
    return cur;
  }

  static std::vector<Expr> substitute_all(const std::vector<Expr>& exprs, const VarMap<Expr>& map) {
    std::vector<Expr> out;
    for (const Expr& e : exprs) out.push_back(substitute(e, map));
    return out;
  }

  const schedule::State& state_;
  const std::vector<StageInfo>& stages_;
  std::map<std::pair<int, int>, std::vector<int>> attached_;
  RegionLoads loads_;
};

}  // namespace

bool reduces_across_threads(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Int32 || t == DType::Int64;
}

Stmt build_loop_nests(const schedule::State& state, const std::vector<StageInfo>& stages) {
  return NestBuilder(state, stages).build_root();
}

}  // namespace tunectl::lower
