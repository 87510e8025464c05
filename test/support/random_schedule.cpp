#include "support/random_schedule.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "ir/error.h"
#include "ir/functor.h"
#include "lower/launch_dims.h"
#include "lower/lower.h"

namespace tunectl::schedule {

namespace {

// Stage-inserting steps (cache_read, cache_write, rfactor) per state: enough
// to combine them, few enough that states stay small.
constexpr int kMaxInsertedStages = 3;

class Proposer {
 public:
  Proposer(const State& s, std::mt19937_64& rng, bool gpu) : s_(s), rng_(rng), gpu_(gpu) {}

  // A random step of a random kind, or nothing when the drawn kind has no
  // candidate in this state.
  std::optional<Step> propose() {
    switch (pick(12)) {
      case 0:
      case 1:
      case 2:
        return split();
      case 3:
        return pick(2) == 0 ? follow_split() : follow_fused_split();
      case 4:
        return reorder();
      case 5:
        return fuse();
      case 6:
      case 7:
        return annotate();
      case 8:
        return compute_at();
      case 9:
        return pick(2) == 0 ? inline_or_root() : pragma();
      default:
        return insert_stage();
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int64_t pick64(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  // A random compute stage with at least one loop, or -1.
  int loop_stage() {
    std::vector<int> c;
    for (int i = 0; i < static_cast<int>(s_.stages.size()); ++i)
      if (!s_.stages[i].op->is_placeholder() && !s_.stages[i].leaves.empty()) c.push_back(i);
    return c.empty() ? -1 : c[pick(static_cast<int>(c.size()))];
  }

  // Mostly a divisor of extent; sometimes any small factor, so that
  // non-dividing splits (guarded loops) are covered too.
  // Unit factors are rare: they only add loops of extent 1.
  int64_t factor(int64_t extent) {
    if (pick(4) == 0) return pick64(1, std::min<int64_t>(extent, 16));
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d * d <= extent; ++d) {
      if (extent % d != 0) continue;
      divisors.push_back(d);
      if (d * d != extent) divisors.push_back(extent / d);
    }
    if (extent > 1) divisors.push_back(extent);
    if (divisors.empty() || pick(8) == 0) return 1;
    return divisors[pick(static_cast<int>(divisors.size()))];
  }

  std::optional<Step> split() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    const Stage& st = s_.stages[i];
    int p = pick(static_cast<int>(st.leaves.size()));
    int64_t extent = st.leaf(p).extent;
    std::vector<int64_t> lengths;
    int64_t remaining = extent;
    for (int k = 1 + pick(3); k > 0; --k) {
      int64_t f = factor(std::max<int64_t>(remaining, 1));
      lengths.insert(lengths.begin(), f);
      remaining = (remaining + f - 1) / f;
    }
    return SplitStep{i, p, extent, lengths, true};
  }

  std::optional<Step> follow_split() {
    std::vector<int> splits;
    for (int k = 0; k < static_cast<int>(s_.history.size()); ++k)
      if (std::holds_alternative<SplitStep>(s_.history[k])) splits.push_back(k);
    int i = loop_stage();
    if (splits.empty() || i < 0) return std::nullopt;
    int src = splits[pick(static_cast<int>(splits.size()))];
    int n_max = static_cast<int>(std::get<SplitStep>(s_.history[src]).lengths.size()) + 1;
    return FollowSplitStep{i, pick(static_cast<int>(s_.stages[i].leaves.size())), src, 1 + pick(n_max)};
  }

  // A split by the product of one level of some earlier splits.
  std::optional<Step> follow_fused_split() {
    std::vector<int> splits;
    for (int k = 0; k < static_cast<int>(s_.history.size()); ++k)
      if (std::holds_alternative<SplitStep>(s_.history[k])) splits.push_back(k);
    int i = loop_stage();
    if (splits.empty() || i < 0) return std::nullopt;
    std::vector<int> src;
    for (int k = 1 + pick(2); k > 0; --k) src.push_back(splits[pick(static_cast<int>(splits.size()))]);
    return FollowFusedSplitStep{i, pick(static_cast<int>(s_.stages[i].leaves.size())), src, pick(2), pick(2) == 0};
  }

  std::optional<Step> reorder() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    std::vector<int> order(s_.stages[i].leaves.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
    std::shuffle(order.begin(), order.end(), rng_);
    return ReorderStep{i, order};
  }

  std::optional<Step> fuse() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    const Stage& st = s_.stages[i];
    int n = static_cast<int>(st.leaves.size());
    if (n < 2) return std::nullopt;
    int p = pick(n - 1);
    std::vector<int> iters{p, p + 1};
    // Sometimes three, when the next one is of the same kind too.
    if (p + 2 < n && st.leaf(p + 2).kind == st.leaf(p).kind && pick(3) == 0) iters.push_back(p + 2);
    return FuseStep{i, iters};
  }

  std::optional<Step> annotate() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    const Stage& st = s_.stages[i];
    int n = static_cast<int>(st.leaves.size());
    if (gpu_) {
      static const char* kGpu[] = {"blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y", "vthread", "unroll"};
      // Vectorized: the innermost loop, as CUDA vector accesses take it.
      if (pick(7) == 0) return AnnotationStep{i, n - 1, "vectorize"};
      return AnnotationStep{i, pick(n), kGpu[pick(6)]};
    }
    switch (pick(3)) {
      case 0:
        return AnnotationStep{i, pick(n), "parallel"};
      case 1:
        return AnnotationStep{i, n - 1, "vectorize"};
      default:
        return AnnotationStep{i, pick(n), "unroll"};
    }
  }

  std::optional<Step> compute_at() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    // Targets: stages that read i directly (apply checks the rest).
    std::vector<int> readers;
    for (int r = i + 1; r < static_cast<int>(s_.stages.size()); ++r)
      for (const auto& in : s_.stages[r].op->inputs)
        if (in->buffer.same_as(s_.stages[i].op->buffer)) readers.push_back(r);
    if (readers.empty()) return std::nullopt;
    int t = readers[pick(static_cast<int>(readers.size()))];
    int n = static_cast<int>(s_.stages[t].leaves.size());
    if (n == 0) return std::nullopt;
    return ComputeAtStep{i, t, pick(n)};
  }

  std::optional<Step> inline_or_root() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    if (pick(4) == 0) return ComputeRootStep{i};
    return ComputeInlineStep{i};
  }

  std::optional<Step> pragma() {
    int i = loop_stage();
    if (i < 0) return std::nullopt;
    static const int kSteps[] = {0, 16, 64, 512};
    return PragmaStep{i, 0, "auto_unroll_max_step$" + std::to_string(kSteps[pick(4)])};
  }

  std::optional<Step> insert_stage() {
    if (static_cast<int>(s_.stages.size() - s_.dag->ops().size()) >= kMaxInsertedStages) return std::nullopt;
    switch (pick(5)) {
      case 0: {
        int i = loop_stage();
        if (i < 0 || s_.stages[i].op->tag == "cache_copy") return std::nullopt;
        return CacheWriteStep{i, "local"};
      }
      case 1: {
        int i = pick(static_cast<int>(s_.stages.size()));
        std::vector<int> readers;
        for (int r = i + 1; r < static_cast<int>(s_.stages.size()); ++r)
          for (const auto& in : s_.stages[r].op->inputs)
            if (in->buffer.same_as(s_.stages[i].op->buffer)) readers.push_back(r);
        if (readers.empty()) return std::nullopt;
        if (readers.size() > 1 && pick(2) == 0) readers.resize(1);
        return CacheReadStep{i, pick(2) == 0 ? "local" : "shared", readers};
      }
      case 2: {
        std::vector<int> copies;
        for (int i = 0; i < static_cast<int>(s_.stages.size()); ++i) {
          const Stage& st = s_.stages[i];
          if (st.op->tag == "cache_read" && st.op->inputs[0]->constant && !st.prepacked) copies.push_back(i);
        }
        if (copies.empty()) return std::nullopt;
        return PrepackStep{copies[pick(static_cast<int>(copies.size()))]};
      }
      case 3: {  // a scoped buffer laid out in a random axis order
        std::vector<int> scoped;
        for (int i = 0; i < static_cast<int>(s_.stages.size()); ++i) {
          const Stage& st = s_.stages[i];
          if (!st.op->is_placeholder() && st.op->buffer->scope != ir::MemScope::Global && st.op->axes.size() > 1 &&
              st.attach.kind != AttachKind::Inline)
            scoped.push_back(i);
        }
        if (scoped.empty()) return std::nullopt;
        const int i = scoped[pick(static_cast<int>(scoped.size()))];
        std::vector<int> order(s_.stages[i].op->axes.size());
        for (size_t a = 0; a < order.size(); ++a) order[a] = static_cast<int>(a);
        for (int a = static_cast<int>(order.size()) - 1; a > 0; --a) std::swap(order[a], order[pick(a + 1)]);
        return StorageOrderStep{i, order};
      }
      default: {
        int i = loop_stage();
        if (i < 0) return std::nullopt;
        const Stage& st = s_.stages[i];
        std::vector<int> reduce_leaves;
        for (int p = 0; p < static_cast<int>(st.leaves.size()); ++p)
          if (st.leaf(p).kind == ir::IterKind::Reduce) reduce_leaves.push_back(p);
        if (reduce_leaves.empty()) return std::nullopt;
        int n_spatial = static_cast<int>(st.op->axes.size());
        return RfactorStep{i, reduce_leaves[pick(static_cast<int>(reduce_leaves.size()))], pick(n_spatial + 1)};
      }
    }
  }

  const State& s_;
  std::mt19937_64& rng_;
  bool gpu_;
};

bool attached_at(const State& s, int stage, int iter_id) {
  return std::any_of(s.stages.begin(), s.stages.end(), [&](const Stage& st) {
    return st.attach.kind == AttachKind::Iter && st.attach.target_stage == stage && st.attach.target_iter == iter_id;
  });
}

// The CPU-friendly limits random_schedule keeps (see the header).
bool cpu_friendly(const State& s) {
  for (int i = 0; i < static_cast<int>(s.stages.size()); ++i) {
    const Stage& st = s.stages[i];
    int parallel = 0;
    for (int p = 0; p < static_cast<int>(st.leaves.size()); ++p) {
      const Iterator& it = st.leaf(p);
      switch (it.annotation) {
        case IterAnnotation::Parallel:
          if (++parallel > 1 || st.attach.kind != AttachKind::Root) return false;
          break;
        case IterAnnotation::Vectorize:
          if (p + 1 != static_cast<int>(st.leaves.size()) || it.extent > 64 || attached_at(s, i, it.id)) return false;
          break;
        case IterAnnotation::Unroll:
          if (it.extent > 16) return false;
          break;
        default:
          break;
      }
    }
  }
  return true;
}

// Stores the emulator would run for func: per thread, the trip counts of
// the loops around each store (a bound loop runs once per thread), times
// the threads of the launch. Schedules where every thread recomputes a
// whole producer are valid but would take minutes to emulate.
int64_t emulated_stores(const lower::LoweredFunc& func) {
  struct Count : ir::IRVisitor {
    int64_t trips = 1, stores = 0;
    void visit_For(const ir::ForNode* op) override {
      const auto* extent = op->extent.as<ir::IntImmNode>();
      const int64_t saved = trips;
      if (op->for_kind != ir::ForKind::ThreadBinding || op->thread_tag == "vthread")
        trips *= extent ? std::max<int64_t>(extent->value, 1) : 1;
      IRVisitor::visit_For(op);
      trips = saved;
    }
    void visit_Store(const ir::StoreNode* op) override {
      stores += trips;
      IRVisitor::visit_Store(op);
    }
  } count;
  count.visit(func.body);
  const lower::LaunchDims dims = lower::launch_dims(func);
  return count.stores * dims.blocks() * dims.threads_per_block();
}

// s lowered for target, or nullopt where lowering refuses it (a prepacked
// region that cannot be laid out; on a GPU, launch limits and bindings):
// checks that State::apply does not make.
std::optional<lower::LoweredFunc> lowered_for(const State& s, const target::Target& target) {
  try {
    return lower::lower(s, "kernel", target);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// Unrolled and vectorized loops (both unrolled in CUDA C) stay short.
bool gpu_friendly(const State& s, const target::Target& target) {
  for (const Stage& st : s.stages)
    for (int leaf : st.leaves)
      if ((st.iters[leaf].annotation == IterAnnotation::Unroll || st.iters[leaf].annotation == IterAnnotation::Vectorize) &&
          st.iters[leaf].extent > 16)
        return false;
  // ... and the result emulates in well under a second.
  const std::optional<lower::LoweredFunc> f = lowered_for(s, target);
  return f && emulated_stores(*f) <= (1 << 18);
}

// Steps accepted by apply and by `keep`, up to num_steps of them.
State random_steps(State state, std::mt19937_64& rng, int num_steps, bool gpu,
                   const std::function<bool(const State&)>& keep) {
  int accepted = 0;
  for (int attempt = 0; attempt < num_steps * 50 && accepted < num_steps; ++attempt) {
    std::optional<Step> step = Proposer(state, rng, gpu).propose();
    if (!step) continue;
    State next = state;
    // An invalid proposal: exactly what validation is there to reject.
    if (next.try_apply(*step) || !keep(next)) continue;
    state = std::move(next);
    ++accepted;
  }
  return state;
}

}  // namespace

State random_schedule(std::shared_ptr<const te::ComputeDAG> dag, std::mt19937_64& rng, int num_steps) {
  auto keep = [](const State& s) { return cpu_friendly(s) && lowered_for(s, target::Target{}).has_value(); };
  return random_steps(State::initial(std::move(dag)), rng, num_steps, false, keep);
}

State random_gpu_schedule(std::shared_ptr<const te::ComputeDAG> dag, std::mt19937_64& rng, int num_steps,
                          const target::Target& target) {
  auto keep = [&](const State& s) { return gpu_friendly(s, target); };
  State state = random_steps(State::initial(std::move(dag)), rng, num_steps, true, keep);
  // Spread the last stage (an output) over blocks and threads where its
  // outer loops are still free: most random steps leave one thread.
  const int last = static_cast<int>(state.stages.size()) - 1;
  for (const char* tag : {"blockIdx.x", "threadIdx.x"}) {
    const Stage& st = state.stages[last];
    for (int p = 0; p < static_cast<int>(st.leaves.size()); ++p) {
      if (st.leaf(p).annotation != IterAnnotation::None || st.leaf(p).kind == ir::IterKind::Reduce) continue;
      State next = state;
      if (!next.try_apply(AnnotationStep{last, p, tag}) && keep(next)) state = std::move(next);
      break;
    }
  }
  return state;
}

}  // namespace tunectl::schedule
