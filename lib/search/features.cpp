#include "search/features.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ir/error.h"
#include "ir/eval_index.h"
#include "ir/functor.h"
#include "ir/scalar_math.h"
#include "ir/substitute.h"
#include "search/gpu_cost.h"

namespace tunectl::search {

namespace {

constexpr int kNumBuffers = 5;
constexpr int64_t kCacheLineBytes = 64;
// Addresses this far apart share an L1 set (x86 cores: 64 sets of 64-byte
// lines, 32 KiB of 8 ways or 48 KiB of 12).
constexpr int64_t kL1SetSpanBytes = 4096;
// A cache level as the working-set features see it (per core; the
// constants are Zen 4's: Intel's 48 KiB of 12 ways and 2 MiB of 16 have the
// same set spans): its sets repeat every set_span bytes and hold `ways`
// lines each, and a statement's working set may take `usable` of its bytes
// and stay there (the rest holds what the statements around it and the
// prefetchers bring).
struct CacheLevel {
  double usable;
  int64_t set_span;
  double ways;
};
// An L2 keeps three quarters: BERT's FFN output layer with a packed 576 KiB
// panel of its weights (8 x 48 tiles, 3072 deep) ran at 226 GFLOP/s on Zen
// 4's 1 MiB L2, as it does only with the panel held across row blocks.
constexpr double kL1UsableShare = 0.5, kL2UsableShare = 0.75;
constexpr int64_t kL2SetSpanBytes = 128 << 10;
constexpr double kCacheWays = 8;
// The innermost loop is walked point by point to count cache lines; longer
// loops are sampled up to this many iterations (lines then scale linearly).
constexpr int64_t kMaxLineWalk = 1024;
// Iterations of a loop nest (vector lanes aside) that LLVM may unroll whole:
// it unrolled 3 x 4 x 24 = 288 of a convolution's kernel columns, channels
// and output columns into one block.
constexpr double kMaxUnrolledWindow = 512;

const char* const kScalarNames[] = {
    "float_add_sub", "float_mul",     "float_div",        "float_min_max",    "float_math",
    "float_cmp",     "float_select",  "int_ops",          "inner_int_ops",    "guard_ops",
    "vec_len",       "vec_inner_loops", "unroll_product", "parallel_product", "trip_product",  "exec_product",
    "num_loops",     "outermost_extent", "innermost_extent", "auto_vector_extent", "window_registers",
    "accumulator_in_memory", "unrolled_accumulators", "is_update", "num_buffers", "arith_intensity",
    "alloc_bytes",   "alloc_trips",
    "block_product", "thread_product", "vthread_product", "shared_bytes",   "blocks_per_sm",
    "wave_fill",     "gpu_estimate_ns", "double_buffered"};
constexpr const char* kBufferNames[] = {"bytes",          "lines",       "stride",   "reuse_carried",
                                        "reuse_distance", "reuse_count", "is_write", "thread_stride",
                                        "is_shared",      "line_reuse_distance", "set_conflict_lines",
                                        "l1_traffic",     "l2_traffic",  "load_share"};
constexpr size_t kNumScalar = std::size(kScalarNames);
constexpr size_t kPerBuffer = std::size(kBufferNames);
constexpr size_t kIsWrite = 6;
static_assert(std::string_view(kBufferNames[kIsWrite]) == "is_write");
constexpr size_t kL1Traffic = 11, kL2Traffic = 12;
static_assert(std::string_view(kBufferNames[kL1Traffic]) == "l1_traffic");
static_assert(std::string_view(kBufferNames[kL2Traffic]) == "l2_traffic");

struct LoopInfo {
  ir::Var var;
  int64_t extent;     // as written
  int64_t effective;  // iterations that pass the enclosing guards (an upper bound)
  ir::ForKind kind;
  std::string tag;    // thread_tag of a loop bound to a hardware index
  bool unrolled = false;  // no loop in the compiled code (mark_unrolled)
};

struct AllocInfo {
  int64_t bytes;
  int64_t trips;  // product of the loop extents around the Allocate
};

using ir::IndexEnv;
using Env = IndexEnv;
using ir::eval_index;

// Operation counts of one expression tree (per execution).
struct OpCounts {
  double add_sub = 0, mul = 0, div = 0, min_max = 0, math = 0, cmp = 0, select = 0, int_ops = 0;
  double flops() const { return add_sub + mul + div + min_max + math + cmp + select; }
};

ir::DType compare_operand_type(const ir::Expr& e) {
  switch (e.kind()) {
    case ir::ExprKind::EQ: return e.as<ir::EQNode>()->a.dtype();
    case ir::ExprKind::NE: return e.as<ir::NENode>()->a.dtype();
    case ir::ExprKind::LT: return e.as<ir::LTNode>()->a.dtype();
    case ir::ExprKind::LE: return e.as<ir::LENode>()->a.dtype();
    case ir::ExprKind::GT: return e.as<ir::GTNode>()->a.dtype();
    case ir::ExprKind::GE: return e.as<ir::GENode>()->a.dtype();
    default: internal_fail("not a comparison: ", ir::to_string(e.kind()));
  }
}

bool is_comparison(ir::ExprKind k) {
  using ir::ExprKind;
  return k == ExprKind::EQ || k == ExprKind::NE || k == ExprKind::LT || k == ExprKind::LE || k == ExprKind::GT ||
         k == ExprKind::GE;
}

void count_ops(const ir::Expr& e, OpCounts& c) {
  ir::post_order_visit(e, [&](const ir::Expr& x) {
    using ir::ExprKind;
    ExprKind k = x.kind();
    bool binary_like = k != ExprKind::IntImm && k != ExprKind::FloatImm && k != ExprKind::Var &&
                       k != ExprKind::Load && k != ExprKind::Cast && k != ExprKind::Reduce;
    if (!binary_like) return;
    // Comparisons have Bool type: their operands say whether they are float.
    if (is_comparison(k)) {
      (ir::is_float(compare_operand_type(x)) ? c.cmp : c.int_ops) += 1;
      return;
    }
    if (!ir::is_float(x.dtype())) {
      c.int_ops += 1;
      return;
    }
    switch (k) {
      case ExprKind::Add:
      case ExprKind::Sub: c.add_sub += 1; break;
      case ExprKind::Mul: c.mul += 1; break;
      case ExprKind::Div: c.div += 1; break;
      case ExprKind::Min:
      case ExprKind::Max: c.min_max += 1; break;
      case ExprKind::Call: c.math += 1; break;
      case ExprKind::Select: c.select += 1; break;
      default: break;
    }
  });
}

// Whether only variables of vars and constants decide e.
bool decided_by(const ir::Expr& e, const ir::VarSet& vars) {
  bool decided = true;
  ir::post_order_visit(e, [&](const ir::Expr& x) {
    if (x.kind() == ir::ExprKind::Load || (x.as<ir::VarNode>() && vars.count(ir::Var(x)) == 0)) decided = false;
  });
  return decided;
}

// e with every Select that the loops the compiled code does not keep decide
// (a Winograd transform's chain of formulas over its unrolled row) replaced
// by its costlier arm: each unrolled copy computes one arm, not all of them.
ir::Expr costlier_arms(const ir::Expr& e, const ir::VarSet& unrolled) {
  struct Folder : ir::IRMutator {
    const ir::VarSet& unrolled;
    explicit Folder(const ir::VarSet& u) : unrolled(u) {}
    ir::Expr mutate_Select(const ir::Expr& e, const ir::SelectNode* op) override {
      if (!decided_by(op->cond, unrolled)) return IRMutator::mutate_Select(e, op);
      const ir::Expr t = mutate(op->true_value), f = mutate(op->false_value);
      OpCounts ct, cf;
      count_ops(t, ct);
      count_ops(f, cf);
      return ct.flops() >= cf.flops() ? t : f;
    }
  };
  return Folder(unrolled).mutate(e);
}

// Integer ops of e that move with one of vars and that the compiler can
// neither hoist out of their loops nor strength-reduce into pointer steps:
// comparisons and logic (a padding select's bounds), min and max, and
// divisions and remainders (the index of a fused loop split again), those
// counted as the 4 instructions a division by a constant takes.
double count_inner_int_ops(const ir::Expr& e, const ir::VarSet& vars) {
  double n = 0;
  ir::post_order_visit(e, [&](const ir::Expr& x) {
    using ir::ExprKind;
    const ExprKind k = x.kind();
    const bool div_mod = k == ExprKind::FloorDiv || k == ExprKind::FloorMod || k == ExprKind::Div;
    const bool compare = is_comparison(k);
    const bool logic = k == ExprKind::And || k == ExprKind::Or || k == ExprKind::Not || k == ExprKind::Min ||
                       k == ExprKind::Max || k == ExprKind::Select;
    if (!(div_mod && ir::is_int(x.dtype())) && !(compare && !ir::is_float(compare_operand_type(x))) &&
        !(logic && !ir::is_float(x.dtype())))
      return;
    if (ir::uses_any_var(x, vars)) n += div_mod ? 4 : 1;
  });
  return n;
}

// Marks the loops the compiled code does not keep: those the schedule
// unrolls, and innermost loops LLVM unrolls whole, up to 64 vector
// registers' worth of the statement with what they hold (a convolution's
// reduction loop of 8 around a 2 x 2 tile of two-register rows was unrolled,
// the tile loop of 2 around it was not).
void mark_unrolled(std::vector<LoopInfo>& loops, int vector_lanes) {
  constexpr double kFullyUnrolledBody = 64;
  double body = 1;
  bool kept_inside = false;
  for (size_t i = loops.size(); i-- > 0;) {
    LoopInfo& l = loops[i];
    const double extent = static_cast<double>(l.effective);
    l.unrolled = l.kind == ir::ForKind::Unrolled;
    if (l.kind == ir::ForKind::Vectorized) {
      body *= std::ceil(extent / static_cast<double>(std::max(1, vector_lanes)));
    } else if (extent > 1 && l.kind != ir::ForKind::Unrolled) {
      // A parallel or thread-bound loop is never unrolled.
      l.unrolled = l.kind == ir::ForKind::Serial && !kept_inside && body * extent <= kFullyUnrolledBody;
      kept_inside = kept_inside || !l.unrolled;
    }
    if (l.unrolled) body *= extent;
  }
}

// The innermost loop the compiled code keeps (loops.size() when none): a
// serial one. The body of a parallel or thread-bound loop is a function of
// its own, so none outside it counts.
size_t innermost_kept(const std::vector<LoopInfo>& loops) {
  for (size_t i = loops.size(); i-- > 0;) {
    const LoopInfo& l = loops[i];
    if (l.effective <= 1 || l.unrolled || l.kind == ir::ForKind::Vectorized) continue;
    return l.kind == ir::ForKind::Serial ? i : loops.size();
  }
  return loops.size();
}

struct BufferAccess {
  ir::Buffer buffer;
  ir::Expr index;  // flat (lowering flattens every access)
  bool is_write = false;
  std::vector<int64_t> steps = {};  // index_steps under the statement's loops
};

// Index steps of an access per loop (outer to inner), each loop moved
// alone from 0 to 1; 0 for a loop of one iteration.
std::vector<int64_t> index_steps(const BufferAccess& a, const std::vector<LoopInfo>& loops) {
  const int64_t base = eval_index(a.index, {});
  std::vector<int64_t> steps;
  for (const LoopInfo& l : loops) steps.push_back(l.effective > 1 ? eval_index(a.index, {{l.var.node(), 1}}) - base : 0);
  return steps;
}

// The cache lines an access touches over one run of a loop nest's inner
// loops, and how many of them fall in one set of a cache.
struct Footprint {
  double bytes = 0;
  double lines_per_set = 0;
};

// footprints[level]: over one run of loops[level..] (level == loops.size():
// the access alone). The loops that move the index, taken by step, either
// extend a contiguous span (a step within it, or within a line: a window
// overlapping itself counts once) or copy it (a step beyond: rows of a
// tile), each copy in whole lines. Copies a multiple of the cache's set span
// apart share its sets (a column panel of a 1024-wide matrix, rows 4 KiB
// apart, puts 32 of them in each L2 set it uses, all of them in one L1 set).
std::vector<Footprint> footprints(const std::vector<int64_t>& steps, const std::vector<LoopInfo>& loops,
                                  int64_t elem_bytes, double buffer_bytes, int64_t set_span) {
  std::vector<Footprint> out(loops.size() + 1);
  for (size_t level = 0; level <= loops.size(); ++level) {
    std::vector<std::pair<int64_t, int64_t>> moving;  // (|step| bytes, iterations)
    for (size_t i = level; i < loops.size(); ++i)
      if (steps[i] != 0) moving.emplace_back(std::llabs(steps[i]) * elem_bytes, loops[i].effective);
    std::sort(moving.begin(), moving.end());
    double span = static_cast<double>(elem_bytes), copies = 1, per_set = 1;
    for (const auto& [step, iterations] : moving) {
      if (static_cast<double>(step) <= std::max(span, static_cast<double>(kCacheLineBytes))) {
        span += static_cast<double>((iterations - 1) * step);
      } else {
        copies *= static_cast<double>(iterations);
        const int64_t period = set_span / std::gcd(step, set_span);  // copies until a set repeats
        per_set *= std::ceil(static_cast<double>(iterations) / static_cast<double>(period));
      }
    }
    const double lines = std::ceil(span / kCacheLineBytes);
    const double whole_buffer = std::ceil(buffer_bytes / kCacheLineBytes) * kCacheLineBytes;
    out[level] = {std::min(copies * lines * kCacheLineBytes, whole_buffer),
                  per_set * std::ceil(span / static_cast<double>(set_span))};
  }
  return out;
}

// Registers a sliding window keeps live where LLVM unrolls it: two loops
// that move a load's index so that different iterations of both read the
// same element (a convolution's output column and kernel column, each
// stepping one pixel), with everything from the outer one inward small
// enough to unroll. Unrolled, each loaded value is kept for its later uses
// across the window: a 24-column tile of a blocked 3x3 convolution with its
// kernel columns unrolled inside spilled 353 vector moves to the stack and
// ran at 1.5-4x the time of the same tile with them outside. The extent of
// both loops less one (the elements one sweep of the inner loop and the
// window cover); 0 where no load has such a window.
double window_registers(const std::vector<BufferAccess>& accesses, const std::vector<LoopInfo>& loops) {
  double widest = 0;
  for (const BufferAccess& a : accesses) {
    if (a.is_write) continue;
    for (size_t outer = 0; outer < loops.size(); ++outer) {
      const LoopInfo& lo = loops[outer];
      if (lo.effective <= 1 || lo.kind == ir::ForKind::Vectorized || a.steps[outer] == 0) continue;
      double unrolled = 1;  // iterations from the outer loop inward, vector lanes aside
      for (size_t i = outer; i < loops.size(); ++i)
        if (loops[i].kind != ir::ForKind::Vectorized) unrolled *= static_cast<double>(loops[i].effective);
      if (unrolled > kMaxUnrolledWindow) continue;
      for (size_t inner = outer + 1; inner < loops.size(); ++inner) {
        const LoopInfo& li = loops[inner];
        if (li.effective <= 1 || li.kind == ir::ForKind::Vectorized || a.steps[inner] == 0) continue;
        // The smallest steps of both that cancel: da x step_outer = db x step_inner.
        const int64_t so = std::llabs(a.steps[outer]), si = std::llabs(a.steps[inner]), g = std::gcd(so, si);
        if (si / g < lo.effective && so / g < li.effective)
          widest = std::max(widest, static_cast<double>(lo.effective + li.effective - 1));
      }
    }
  }
  return widest;
}

// Features of one buffer access under a loop nest (outer to inner); the
// traffic columns are left 0 (the statement's working set sets them).
std::vector<double> access_features(const BufferAccess& a, const std::vector<LoopInfo>& loops) {
  int64_t elem_bytes = ir::dtype_bytes(a.buffer->dtype);
  auto at = [&](const ir::Expr& index, const Env& env) { return eval_index(index, env); };
  int64_t base = at(a.index, {});
  const std::vector<int64_t>& steps = a.steps;

  double elements = 1, reuse_count = 1;
  int innermost_reuse = -1;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].effective <= 1) continue;
    if (steps[i] != 0) {
      elements *= static_cast<double>(loops[i].effective);
    } else {
      reuse_count *= static_cast<double>(loops[i].effective);
      innermost_reuse = static_cast<int>(i);
    }
  }
  elements = std::min(elements, static_cast<double>(a.buffer->num_elements()));
  double reuse_distance = 0;
  if (innermost_reuse >= 0) {
    reuse_distance = 1;
    for (size_t i = innermost_reuse + 1; i < loops.size(); ++i) reuse_distance *= static_cast<double>(loops[i].effective);
  }

  // One cache line used again: the innermost loop (not the vector lanes,
  // which one instruction covers) whose step stays within a line.
  // Between two such uses, the lines the loops inside touch that fall in
  // one L1 set: a loop stepping by a multiple of the set span (4 KiB) puts
  // every line in the same set, one stepping by 3 KiB every fourth.
  double line_reuse_distance = 0, set_conflict_lines = 0;
  for (size_t i = loops.size(); i-- > 0;) {
    if (loops[i].effective <= 1 || loops[i].kind == ir::ForKind::Vectorized) continue;
    if (std::llabs(steps[i]) * elem_bytes >= kCacheLineBytes) continue;
    line_reuse_distance = 1;
    set_conflict_lines = 1;
    for (size_t j = i + 1; j < loops.size(); ++j) {
      line_reuse_distance *= static_cast<double>(loops[j].effective);
      const int64_t step_bytes = std::llabs(steps[j]) * elem_bytes;
      if (step_bytes < kCacheLineBytes) continue;
      const int64_t period = kL1SetSpanBytes / std::gcd(step_bytes, kL1SetSpanBytes);  // iterations until a set repeats
      set_conflict_lines *= std::ceil(static_cast<double>(loops[j].effective) / static_cast<double>(period));
    }
    break;
  }

  // Statement runs that issue the access, of all: the compiler hoists it
  // out of the loops inside the innermost one that moves it, and shares one
  // load among the unrolled copies (or vector lanes) of a loop that does
  // not move it, inside the innermost loop it keeps (an unrolled loop
  // outside that copies the whole loop). A 7x7 stem's stride-2 input row,
  // unrolled across 4 output channels, is loaded and shuffled once for 4
  // FMAs.
  int innermost_move = -1;
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].effective > 1 && steps[i] != 0) innermost_move = static_cast<int>(i);
  const size_t kept = innermost_kept(loops);
  double load_share = 1;
  for (size_t i = 0; i < loops.size(); ++i) {
    const bool copies = kept == loops.size() || i > kept;
    if (loops[i].effective > 1 && steps[i] == 0 && (static_cast<int>(i) > innermost_move || copies))
      load_share /= static_cast<double>(loops[i].effective);
  }

  double lines = 1, stride = 0;
  if (!loops.empty()) {
    const LoopInfo& inner = loops.back();
    stride = static_cast<double>(std::llabs(steps.back()));
    int64_t walk = std::min(inner.effective, kMaxLineWalk);
    std::unordered_set<int64_t> seen;
    for (int64_t v = 0; v < walk; ++v) seen.insert(ir::floordiv_int(at(a.index, {{inner.var.node(), v}}) * elem_bytes, kCacheLineBytes));
    lines = walk == 0 ? 0.0 : static_cast<double>(seen.size()) * static_cast<double>(inner.effective) / static_cast<double>(walk);
  }
  // The step between neighbouring threads of a warp (the innermost
  // threadIdx.x loop): coalescing of a global access, bank conflicts of a
  // shared one.
  double thread_stride = 0;
  for (size_t i = loops.size(); i-- > 0;) {
    if (loops[i].tag != "threadIdx.x") continue;
    thread_stride = static_cast<double>(std::llabs(at(a.index, {{loops[i].var.node(), 1}}) - base));
    break;
  }
  return {elements * elem_bytes,
          lines,
          stride,
          innermost_reuse >= 0 ? 1.0 : 0.0,
          reuse_distance,
          reuse_count,
          a.is_write ? 1.0 : 0.0,
          thread_stride,
          a.buffer->scope == ir::MemScope::Shared ? 1.0 : 0.0,
          line_reuse_distance,
          set_conflict_lines,
          0.0,
          0.0,
          load_share};
}

class FeatureExtractor {
 public:
  FeatureExtractor(const lower::LoweredFunc& func, const target::Target& target, const lower::LoweredFunc& compiled)
      : double_buffered_(static_cast<double>(compiled.double_buffered.size())), l1_bytes_(target.l1d_bytes),
        l2_bytes_(target.l2_bytes), vector_lanes_(target.vector_lanes) {
    for (const ir::Buffer& b : func.args) args_.insert(b.get());
    if (target.kind == target::TargetKind::Cuda) gpu_ = estimate_gpu_cost(compiled, target.gpu);
  }

  void walk(const ir::Stmt& s) {
    if (!s) return;
    if (auto* f = s.as<ir::ForNode>()) {
      const int64_t* ext = ir::as_const_int(f->extent);
      loops_.push_back({f->var, ext ? *ext : 1, ext ? *ext : 1, f->for_kind, f->thread_tag});
      walk(f->body);
      loops_.pop_back();
    } else if (auto* st = s.as<ir::StoreNode>()) {
      rows_.push_back(row(st));
    } else if (auto* a = s.as<ir::AllocateNode>()) {
      allocs_[a->buffer.get()] = {a->buffer->num_bytes(), trip_product()};
      walk(a->body);
    } else if (auto* seq = s.as<ir::SeqNode>()) {
      for (const ir::Stmt& x : seq->stmts) walk(x);
    } else if (auto* i = s.as<ir::IfThenElseNode>()) {
      OpCounts guard;
      count_ops(i->cond, guard);
      double guard_ops = (guard.int_ops + guard.flops()) * guard_trips(i->cond);
      guard_ops_ += guard_ops;
      std::vector<LoopInfo> saved = loops_;
      tighten(i->cond);
      walk(i->then_case);
      loops_ = std::move(saved);
      walk(i->else_case);
      guard_ops_ -= guard_ops;
    }
  }

  std::vector<std::vector<float>> take_rows() { return std::move(rows_); }

 private:
  int64_t trip_product() const {
    int64_t p = 1;
    for (const LoopInfo& l : loops_) p *= l.extent;
    return p;
  }
  // Times a guard is tested: once per iteration of the innermost loop
  // that moves its condition. The loops inside, which do not, leave the
  // test outside them (LLVM hoists and unswitches it; a vector loop whose
  // lanes share it branches once per vector): light ResNet-50's 7x7 stem
  // with its kernel rows split 3 x 3, guarded `ry.0 * 3 + ry.1 < 7` inside
  // its vector loop, runs as fast as the stems without a guard.
  double guard_trips(const ir::Expr& cond) const {
    size_t moving = 0;  // the loops down to the innermost that moves it
    for (size_t i = 0; i < loops_.size(); ++i)
      if (ir::uses_var(cond, loops_[i].var)) moving = i + 1;
    double trips = 1;
    for (size_t i = 0; i < moving; ++i) trips *= static_cast<double>(loops_[i].extent);
    return trips;
  }
  double exec_product() const {
    double p = 1;
    for (const LoopInfo& l : loops_) p *= static_cast<double>(l.effective);
    return p;
  }

  // Splits that do not divide leave guards like `i.0 * 32 + i.1 < 100` around
  // the body; most iterations of such a nest may do nothing. Each conjunct
  // `lhs < rhs` (or <=, >, >=) whose difference is linear with non-negative
  // loop coefficients bounds every loop in it (the others at 0), so the
  // product of the bounded extents is an upper bound on executions.
  void tighten(const ir::Expr& cond) {
    if (auto* a = cond.as<ir::AndNode>()) {
      tighten(a->a);
      tighten(a->b);
      return;
    }
    // diff < limit, diff = x - y.
    ir::Expr x, y;
    int64_t limit = 0;
    if (auto* c = cond.as<ir::LTNode>()) x = c->a, y = c->b;
    else if (auto* c = cond.as<ir::LENode>()) x = c->a, y = c->b, limit = 1;
    else if (auto* c = cond.as<ir::GTNode>()) x = c->b, y = c->a;
    else if (auto* c = cond.as<ir::GENode>()) x = c->b, y = c->a, limit = 1;
    else return;
    if (!ir::is_int(x.dtype())) return;
    auto diff = [&](const Env& env) { return eval_index(x, env) - eval_index(y, env); };
    int64_t base = diff({});
    std::vector<int64_t> coeffs;
    for (const LoopInfo& l : loops_) {
      coeffs.push_back(diff({{l.var.node(), 1}}) - base);
      if (coeffs.back() < 0) return;
      // Linear over the whole loop, not only at its first step: a fused
      // loop's `i % 17 * 46` steps by 46 from 0 to 1 but wraps after 17.
      if (diff({{l.var.node(), l.extent - 1}}) - base != coeffs.back() * (l.extent - 1)) return;
    }
    for (size_t i = 0; i < loops_.size(); ++i) {
      if (coeffs[i] == 0) continue;
      int64_t count = -ir::floordiv_int(-(limit - base), coeffs[i]);  // ceil((limit - base) / coeff)
      loops_[i].effective = std::clamp<int64_t>(count, 0, loops_[i].effective);
    }
  }

  std::vector<float> row(const ir::StoreNode* st) {
    internal_check(st->indices.size() == 1, "features expect flattened stores (lower::lower flattens)");
    double trips = exec_product();
    mark_unrolled(loops_, vector_lanes_);
    OpCounts ops;
    count_ops(costlier_arms(st->value, unrolled_vars()), ops);
    count_ops(st->indices[0], ops);

    // Accesses of the statement: the store and every load in its value.
    std::vector<BufferAccess> accesses{{st->buffer, st->indices[0], true}};
    bool is_update = false;
    ir::post_order_visit(st->value, [&](const ir::Expr& x) {
      if (auto* ld = x.as<ir::LoadNode>()) {
        if (ld->buffer.same_as(st->buffer)) is_update = true;
        accesses.push_back({ld->buffer, ld->indices.at(0), false});
      }
    });
    for (BufferAccess& a : accesses) a.steps = index_steps(a, loops_);
    // One entry per buffer: the access touching the most bytes stands for it.
    std::vector<std::vector<double>> buffers;
    std::vector<const ir::BufferNode*> seen;
    for (const BufferAccess& a : accesses) {
      std::vector<double> f = access_features(a, loops_);
      auto it = std::find(seen.begin(), seen.end(), a.buffer.get());
      if (it == seen.end()) {
        seen.push_back(a.buffer.get());
        buffers.push_back(std::move(f));
      } else {
        std::vector<double>& old = buffers[it - seen.begin()];
        const double is_write = std::max(old[kIsWrite], f[kIsWrite]);
        if (f[0] > old[0]) old = std::move(f);
        old[kIsWrite] = is_write;
      }
    }
    set_traffic(accesses, seen, {kL1UsableShare * static_cast<double>(l1_bytes_), kL1SetSpanBytes, kCacheWays},
                kL1Traffic, buffers);
    set_traffic(accesses, seen, {kL2UsableShare * static_cast<double>(l2_bytes_), kL2SetSpanBytes, kCacheWays},
                kL2Traffic, buffers);
    std::stable_sort(buffers.begin(), buffers.end(), [](const auto& a, const auto& b) { return a[0] > b[0]; });
    double total_bytes = 0;
    for (const auto& b : buffers) total_bytes += b[0];

    double vec_len = 0, vec_inner = 0, unroll = 0, parallel = 0;
    for (size_t i = 0; i < loops_.size(); ++i) {
      double ext = static_cast<double>(loops_[i].extent);
      switch (loops_[i].kind) {
        case ir::ForKind::Vectorized:
          vec_len = ext;
          vec_inner = static_cast<double>(loops_.size() - 1 - i);
          break;
        case ir::ForKind::Unrolled: unroll = (unroll == 0 ? 1 : unroll) * ext; break;
        case ir::ForKind::Parallel: parallel = (parallel == 0 ? 1 : parallel) * ext; break;
        default: break;
      }
    }
    AllocInfo alloc{0, 0};
    if (!args_.count(st->buffer.get())) {
      auto it = allocs_.find(st->buffer.get());
      if (it != allocs_.end()) alloc = it->second;
    }

    const ir::VarSet inner_vars = innermost_vars();
    std::vector<double> raw = {ops.add_sub * trips,
                               ops.mul * trips,
                               ops.div * trips,
                               ops.min_max * trips,
                               ops.math * trips,
                               ops.cmp * trips,
                               ops.select * trips,
                               ops.int_ops * trips,
                               (count_inner_int_ops(st->value, inner_vars) +
                                count_inner_int_ops(st->indices[0], inner_vars)) * trips,
                               guard_ops_,
                               vec_len,
                               vec_inner,
                               unroll,
                               parallel,
                               static_cast<double>(trip_product()),
                               trips,
                               static_cast<double>(loops_.size()),
                               loops_.empty() ? 0.0 : static_cast<double>(loops_.front().extent),
                               loops_.empty() ? 0.0 : static_cast<double>(loops_.back().effective),
                               auto_vector_extent(accesses, ops),
                               window_registers(accesses, loops_),
                               is_update && accumulator_in_memory(accesses.front())
                                   ? updates_per_load(accesses.front())
                                   : 0.0,
                               is_update ? unrolled_accumulators(accesses.front()) : 0.0,
                               is_update ? 1.0 : 0.0,
                               static_cast<double>(buffers.size()),
                               ops.flops() * trips / std::max(total_bytes, 1.0),
                               static_cast<double>(alloc.bytes),
                               static_cast<double>(alloc.trips),
                               hardware_product("blockIdx"),
                               hardware_product("threadIdx"),
                               vthread_product(),
                               static_cast<double>(gpu_.shared_bytes_per_block),
                               static_cast<double>(gpu_.blocks_per_sm),
                               gpu_.fill * 100,
                               std::isfinite(gpu_.seconds) ? gpu_.seconds * 1e9 : 0.0,
                               double_buffered_};
    internal_check(raw.size() == kNumScalar, "feature table and row disagree");
    for (int i = 0; i < kNumBuffers; ++i) {
      if (i < static_cast<int>(buffers.size())) {
        raw.insert(raw.end(), buffers[i].begin(), buffers[i].end());
      } else {
        raw.insert(raw.end(), kPerBuffer, 0.0);
      }
    }
    std::vector<float> out;
    out.reserve(raw.size());
    for (double x : raw) out.push_back(static_cast<float>(std::log2(1.0 + std::max(x, 0.0))));
    return out;
  }

  // Each buffer's traffic into a cache level of a core (column `column`):
  // the bytes it brings in under the statement's loops. The working set of
  // a run of loops[level..] is the footprint of all its buffers (each
  // access's largest). Where it fits the cache's usable bytes, and puts no
  // more lines in one set than its ways, the cache holds one iteration of
  // the loop around while the next begins: what its iterations share is
  // loaded once per run of that loop, and the loops outside it run it
  // again.
  void set_traffic(const std::vector<BufferAccess>& accesses, const std::vector<const ir::BufferNode*>& seen,
                   const CacheLevel& cache, size_t column, std::vector<std::vector<double>>& buffers) const {
    std::vector<std::vector<Footprint>> per_buffer(seen.size(), std::vector<Footprint>(loops_.size() + 1));
    for (const BufferAccess& a : accesses) {
      const std::vector<Footprint> f = footprints(a.steps, loops_, ir::dtype_bytes(a.buffer->dtype),
                                                  static_cast<double>(a.buffer->num_bytes()), cache.set_span);
      std::vector<Footprint>& mine = per_buffer[std::find(seen.begin(), seen.end(), a.buffer.get()) - seen.begin()];
      for (size_t level = 0; level < f.size(); ++level) {
        mine[level].bytes = std::max(mine[level].bytes, f[level].bytes);
        mine[level].lines_per_set = std::max(mine[level].lines_per_set, f[level].lines_per_set);
      }
    }
    size_t held = loops_.size();  // the outermost level whose run stays in the cache
    while (held > 0) {
      double working_set = 0;
      bool conflicts = false;
      for (const std::vector<Footprint>& f : per_buffer) {
        working_set += f[held - 1].bytes;
        conflicts = conflicts || f[held - 1].lines_per_set > cache.ways;
      }
      if (working_set > cache.usable || conflicts) break;
      --held;
    }
    // The loop around that level keeps what its iterations share: each run
    // of it loads its footprint once.
    const size_t level = held > 0 ? held - 1 : 0;
    double runs = 1;  // runs of loops[level..]
    for (size_t i = 0; i < level; ++i) runs *= static_cast<double>(loops_[i].effective);
    for (size_t b = 0; b < buffers.size(); ++b) buffers[b][column] = runs * per_buffer[b][level].bytes;
  }

  // The variables of the loops the compiled code does not keep.
  ir::VarSet unrolled_vars() const {
    ir::VarSet vars;
    for (const LoopInfo& l : loops_)
      if (l.unrolled) vars.insert(l.var);
    return vars;
  }

  // The variables of the innermost loops: the vectorized one, if any, and
  // the innermost other one, whose every iteration runs the statement's
  // code once.
  ir::VarSet innermost_vars() const {
    ir::VarSet vars;
    for (size_t i = loops_.size(); i-- > 0;) {
      vars.insert(loops_[i].var);
      if (loops_[i].kind != ir::ForKind::Vectorized) break;
    }
    return vars;
  }

  // Whether an update's accumulator lives in memory: a loop the compiled
  // code keeps that does not move it has it loaded before and stored after
  // (LICM); the innermost one moving it loads and stores it around the
  // updates of the unrolled block inside it (updates_per_load).
  bool accumulator_in_memory(const BufferAccess& store) const {
    const size_t kept = innermost_kept(loops_);
    return kept < loops_.size() && store.steps[kept] != 0;
  }

  // The loops inside the innermost one the compiled code keeps, vector
  // lanes aside: all unrolled, one block of code. updates_per_load: the
  // updates of one accumulator in it, between the load and the store around
  // it (an accumulator in memory). unrolled_accumulators: the accumulators
  // it updates, each a chain of FMAs the out-of-order core interleaves with
  // the others whatever their order in the code, where the block holds at
  // most kInterleavedUpdates (Zen 4's FP scheduler holds 64). A 2 x 2 tile of two-register rows
  // under 8 reduction steps unrolled inside a kept tile loop ran at 1.03x
  // the time of the same tile kept in registers over 64 kept steps
  // (2026-12-07; "4x" in the build of an earlier day); a matrix-vector
  // product's row of 2048 updates unrolled did not interleave.
  double updates_per_load(const BufferAccess& store) const {
    double updates = 1;
    for (size_t i = unrolled_block_start(); i < loops_.size(); ++i)
      if (loops_[i].kind != ir::ForKind::Vectorized && store.steps[i] == 0)
        updates *= static_cast<double>(loops_[i].effective);
    return updates;
  }
  double unrolled_accumulators(const BufferAccess& store) const {
    constexpr double kInterleavedUpdates = 64;
    double accumulators = 1, updates = 1;
    for (size_t i = unrolled_block_start(); i < loops_.size(); ++i) {
      if (loops_[i].kind == ir::ForKind::Vectorized) continue;
      const double extent = static_cast<double>(loops_[i].effective);
      updates *= extent;
      if (store.steps[i] != 0) accumulators *= extent;
    }
    return updates <= kInterleavedUpdates ? accumulators : 1;
  }
  // Where that block starts: after the innermost loop of the compiled code
  // (kept, or parallel: each thread runs its chunk as a loop).
  size_t unrolled_block_start() const {
    for (size_t i = loops_.size(); i-- > 0;) {
      const LoopInfo& l = loops_[i];
      if (l.effective > 1 && !l.unrolled && l.kind != ir::ForKind::Vectorized) return i + 1;
    }
    return 0;
  }

  // The loop LLVM's loop vectorizer takes where no loop is vectorized: it
  // first unrolls whole the innermost reduction loops of a few iterations
  // (a 3x3 window, along which the statement stores to one element; a 7x7
  // pool's 49 adds: LLVM's full unroll takes loops of up to about 300
  // instructions), then vectorizes the loop they leave innermost if that is
  // a serial loop along which the statement stores contiguously (not one
  // unrolled already) and loads without gathers (a matrix-vector product
  // along its matrix's columns gathers a row apart: it ran at 6x the time
  // of one along the rows), or a reduction loop below. Its extent; 0 when
  // there is none or a loop is vectorized.
  double auto_vector_extent(const std::vector<BufferAccess>& accesses, const OpCounts& ops) const {
    constexpr int64_t kFullyUnrolledTrips = 16;
    constexpr double kFullyUnrolledInstructions = 200;  // of LLVM's 300, some go to addresses and the loop
    const double body = ops.flops() + static_cast<double>(accesses.size());
    const int64_t max_window =
        std::max(kFullyUnrolledTrips, static_cast<int64_t>(kFullyUnrolledInstructions / std::max(1.0, body)));
    const std::vector<int64_t>& store_steps = accesses.front().steps;
    int64_t window = 1;
    for (size_t i = loops_.size(); i-- > 0;) {
      const LoopInfo& l = loops_[i];
      if (l.kind == ir::ForKind::Vectorized) return 0;
      if (store_steps[i] == 0 && l.kind != ir::ForKind::Parallel && window * l.extent <= max_window) {
        window *= l.extent;
        continue;
      }
      if (l.kind != ir::ForKind::Serial) return 0;
      // A reduction loop left innermost with nothing unrolled inside:
      // fast-math lets LLVM split its sum into vectors of partial sums if
      // every load is contiguous along it, kReductionVectors of them per
      // step, so a loop of fewer trips than their lanes stays scalar (a
      // matrix-vector product's rows summed 51 at a time ran at 8x the time
      // of 64 at a time; 63 at 1.7x). With a loop unrolled inside, the sum
      // is one chain of adds that nothing splits (its reduction split
      // 52 x 39, the 39 unrolled: one FMA per 4 cycles).
      constexpr int64_t kReductionVectors = 4;
      int64_t max_load_step = 0;  // 0: LLVM vectorizes no loop
      if (store_steps[i] == 1) max_load_step = target::Target::kMaxShuffledLoadStride;
      if (store_steps[i] == 0 && window == 1 && l.extent >= kReductionVectors * vector_lanes_) max_load_step = 1;
      if (max_load_step == 0) return 0;
      for (const BufferAccess& a : accesses)
        if (std::abs(a.steps[i]) > max_load_step) return 0;
      return static_cast<double>(l.extent);
    }
    return 0;
  }

  // Product of the extents of the enclosing loops bound to blockIdx.* or
  // threadIdx.* (prefix), a tag bound again inside (a cooperative fetch)
  // counting with its innermost extent; 0 when none.
  double hardware_product(const std::string& prefix) const {
    std::unordered_map<std::string, int64_t> innermost;
    for (const LoopInfo& l : loops_)
      if (l.tag.rfind(prefix, 0) == 0) innermost[l.tag] = l.extent;
    if (innermost.empty()) return 0;
    double p = 1;
    for (const auto& [tag, e] : innermost) p *= static_cast<double>(e);
    return p;
  }
  // Product of the enclosing vthread loops; 0 when none.
  double vthread_product() const {
    double p = 0;
    for (const LoopInfo& l : loops_)
      if (l.tag == "vthread") p = (p == 0 ? 1 : p) * static_cast<double>(l.extent);
    return p;
  }

  GpuCost gpu_;  // the whole kernel's analytic cost (zero on the CPU)
  double double_buffered_;
  int64_t l1_bytes_, l2_bytes_;
  int vector_lanes_;
  std::unordered_set<const ir::BufferNode*> args_;
  std::unordered_map<const ir::BufferNode*, AllocInfo> allocs_;
  std::vector<LoopInfo> loops_;
  double guard_ops_ = 0;  // ops of the guards around the current statement, times their trips
  std::vector<std::vector<float>> rows_;
};

}  // namespace

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n(std::begin(kScalarNames), std::end(kScalarNames));
    for (int i = 0; i < kNumBuffers; ++i) {
      for (const char* b : kBufferNames) n.push_back("b" + std::to_string(i) + "_" + b);
    }
    return n;
  }();
  return names;
}

std::vector<std::vector<float>> extract_features(const lower::LoweredFunc& func, const target::Target& target,
                                                 const lower::LoweredFunc* compiled) {
  FeatureExtractor extractor(func, target, compiled != nullptr ? *compiled : func);
  extractor.walk(func.body);
  return extractor.take_rows();
}

}  // namespace tunectl::search
