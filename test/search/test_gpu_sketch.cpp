// The GPU sketch rules and annotation (search/sketch_rules.h) make the
// structures they promise: SSSRRSRS tiles bound to blocks, vthreads and
// threads with shared caches fetched cooperatively, every other stage inside
// the output's thread loop, tiles within the target's limits, and fetches
// that follow their tile through mutation. (That every GPU sketch and
// annotation computes the reference is test/compiler's GPU property test.)
#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <set>

#include "lower/launch_dims.h"
#include "lower/lower.h"
#include "ir/functor.h"
#include "ops/matmul.h"
#include "ops/registry.h"
#include "ops/transform.h"
#include "search/mutation.h"
#include "search/sketch.h"
#include "support/gpu_schedules.h"
#include "search_test_util.h"

using namespace tunectl;

namespace {

using schedule::IterAnnotation;
using schedule::State;

search::SearchParams gpu_params() { return search::for_target({}, schedule::cuda_target("sm_90")); }

std::shared_ptr<const te::ComputeDAG> op_dag(const std::string& op, const nlohmann::json& config) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, config));
}

int64_t extent_bound_to(const schedule::Stage& st, IterAnnotation a) {
  for (int id : st.leaves)
    if (st.iters[id].annotation == a) return st.iters[id].extent;
  return 0;
}

// Whether stage i runs inside stage `out`'s thread loop (transitively).
bool inside_thread_loop(const State& s, int i, int out) {
  for (int st = i; s.stages[st].attach.kind == schedule::AttachKind::Iter;) {
    const schedule::Attach& a = s.stages[st].attach;
    if (a.target_stage == out) return s.stages[out].iters[a.target_iter].annotation == IterAnnotation::ThreadX;
    st = a.target_stage;
  }
  return false;
}

}  // namespace

TEST_CASE("GPU sketch of a matmul: tiles bound to blocks, vthreads and threads, shared caches", "[unit]") {
  const search::SearchParams params = gpu_params();
  const std::vector<State> sketches =
      search::generate_sketches(op_dag("matmul", {{"M", 128}, {"N", 256}, {"K", 64}}), params);
  // Row-major tiles, and A's tile stored in the order its consumer walks it
  // (k-major: a thread's rows of A innermost); B's is walked row-major.
  REQUIRE(sketches.size() == 2);
  for (int k = 0; k < 2; ++k) {
    CHECK(sketches[k].stages[schedule::stage_named(sketches[k], "A.shared")].storage_order ==
          (k == 0 ? std::vector<int>{} : std::vector<int>{1, 0}));
    CHECK(sketches[k].stages[schedule::stage_named(sketches[k], "B.shared")].storage_order.empty());
  }
  const State& s = sketches[0];
  const int out = schedule::stage_named(s, "matmul"), local = schedule::stage_named(s, "matmul.local");
  CHECK(s.stages[out].leaf(0).annotation == IterAnnotation::BlockX);
  CHECK(s.stages[out].leaf(1).annotation == IterAnnotation::VThread);
  CHECK(s.stages[out].leaf(2).annotation == IterAnnotation::ThreadX);
  CHECK(inside_thread_loop(s, local, out));
  for (const char* name : {"A.shared", "B.shared"}) {
    const schedule::Stage& cache = s.stages[schedule::stage_named(s, name)];
    CHECK(cache.op->buffer->scope == ir::MemScope::Shared);
    CHECK(cache.attach.target_stage == local);
    CHECK(cache.leaf(1).annotation == IterAnnotation::ThreadX);
  }

  std::mt19937_64 rng(3);
  int aligned = 0;
  const int n = 40;
  for (int k = 0; k < n; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(s, rng, params);
    REQUIRE(c.has_value());
    const State& a = c->state;
    const int64_t threads = extent_bound_to(a.stages[out], IterAnnotation::ThreadX);
    CHECK(threads <= params.target.gpu.max_threads_per_block);
    CHECK(extent_bound_to(a.stages[out], IterAnnotation::VThread) <= 8);
    aligned += threads % 32 == 0;
    // Each fetch uses exactly the tile's threads.
    for (const char* name : {"A.shared", "B.shared"})
      CHECK(extent_bound_to(a.stages[schedule::stage_named(a, name)], IterAnnotation::ThreadX) == threads);
  }
  // Whole warps, but for the share drawn unaligned (gpu_warp_aligned_prob).
  CHECK(aligned >= n * 3 / 4);
}

TEST_CASE("GPU mutations keep each cooperative fetch in step with its tile's threads", "[unit]") {
  const search::SearchParams params = gpu_params();
  const State sketch = search::generate_sketches(op_dag("matmul", {{"M", 128}, {"N", 128}, {"K", 128}}), params)[0];
  std::mt19937_64 rng(11);
  int changed_threads = 0;
  for (int k = 0; k < 30; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(sketch, rng, params);
    REQUIRE(c.has_value());
    std::optional<State> m = search::mutate(c->state, rng, params);
    if (!m) continue;
    const int out = schedule::stage_named(*m, "matmul");
    const int64_t threads = extent_bound_to(m->stages[out], IterAnnotation::ThreadX);
    changed_threads += threads != extent_bound_to(c->state.stages[out], IterAnnotation::ThreadX);
    for (const char* name : {"A.shared", "B.shared"})
      CHECK(extent_bound_to(m->stages[schedule::stage_named(*m, name)], IterAnnotation::ThreadX) == threads);
  }
  CHECK(changed_threads > 0);
}

TEST_CASE("GPU annotation double-buffers the shared tiles of some programs, and mutation turns it on and off",
          "[unit]") {
  search::SearchParams params = gpu_params();
  params.mutate_tile_size_weight = params.mutate_unroll_weight = params.mutate_compute_at_weight = 0;
  params.mutate_parallel_weight = 0;
  const State sketch = search::generate_sketches(op_dag("matmul", {{"M", 128}, {"N", 128}, {"K", 128}}), params)[0];
  const auto double_buffered = [](const State& s) {
    int n = 0;
    for (const schedule::Stage& st : s.stages) n += st.double_buffer;
    return n;
  };
  std::mt19937_64 rng(5);
  int with = 0;
  for (int k = 0; k < 30; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(sketch, rng, params);
    REQUIRE(c.has_value());
    const int n = double_buffered(c->state);
    CHECK((n == 0 || n == 2));  // both tiles or neither
    with += n > 0;
    std::optional<State> m = search::mutate(c->state, rng, params);
    REQUIRE(m.has_value());
    CHECK(double_buffered(*m) == (n == 0 ? 2 : 0));
  }
  CHECK(with > 5);
  CHECK(with < 25);
}

TEST_CASE("GPU sketch of softmax: one kernel, every stage per thread inside the output's thread loop", "[unit]") {
  // Rows shorter than a warp: no reduction across threads.
  const std::vector<State> sketches = search::generate_sketches(op_dag("softmax", ops::test_configs("softmax").front()), gpu_params());
  REQUIRE(sketches.size() == 1);
  const State& s = sketches[0];
  const int out = static_cast<int>(s.stages.size()) - 1;
  CHECK(s.stages[out].leaf(0).annotation == IterAnnotation::BlockX);
  CHECK(s.stages[out].leaf(1).annotation == IterAnnotation::ThreadX);
  for (int i = 0; i < out; ++i) {
    const schedule::Stage& st = s.stages[i];
    if (st.op->is_placeholder() || st.attach.kind == schedule::AttachKind::Inline) continue;
    INFO(st.op->name);
    CHECK(inside_thread_loop(s, i, out));
  }
}

namespace {

// The extent of stage i's reduce loop bound to threadIdx.x; 0 if none.
int64_t threads_sharing_reduction(const schedule::Stage& st) {
  for (int id : st.leaves)
    if (st.iters[id].kind == ir::IterKind::Reduce && st.iters[id].annotation == IterAnnotation::ThreadX)
      return st.iters[id].extent;
  return 0;
}

}  // namespace

TEST_CASE("GPU sketches of softmax with rows longer than a warp: the rows' threads share its max and sum", "[unit]") {
  const search::SearchParams params = gpu_params();
  const std::vector<State> sketches = search::generate_sketches(op_dag("softmax", {{"shape", {3, 100}}}), params);
  // Each reduction per thread or across threads, but the max across
  // threads only where the sum (its reader) computes in the output's rows.
  REQUIRE(sketches.size() == 3);
  const State& s = sketches.back();
  const int out = schedule::stage_named(s, "softmax");
  // The output: a block per row, the row split by the threads.
  REQUIRE(s.stages[out].leaves.size() == 3);
  CHECK(s.stages[out].leaf(0).annotation == IterAnnotation::BlockX);
  CHECK(s.stages[out].leaf(0).extent == 3);
  CHECK(s.stages[out].leaf(2).annotation == IterAnnotation::ThreadX);
  for (const char* name : {"softmax_max", "softmax_expsum"}) {
    INFO(name);
    const schedule::Stage& st = s.stages[schedule::stage_named(s, name)];
    CHECK(st.attach.kind == schedule::AttachKind::Iter);
    CHECK(st.attach.target_stage == out);
    CHECK(st.attach.target_iter == s.stages[out].leaves[0]);
    CHECK(threads_sharing_reduction(st) == 1);  // the placeholder
  }
  // Annotation draws one thread count for the block: a power of two from a
  // warp, below twice the row; the launch is that block.
  std::mt19937_64 rng(5);
  std::set<int64_t> drawn;
  for (int k = 0; k < 20; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(s, rng, params);
    REQUIRE(c.has_value());
    const int64_t threads = threads_sharing_reduction(c->state.stages[schedule::stage_named(c->state, "softmax_max")]);
    CHECK(threads_sharing_reduction(c->state.stages[schedule::stage_named(c->state, "softmax_expsum")]) == threads);
    CHECK(extent_bound_to(c->state.stages[out], IterAnnotation::ThreadX) == threads);
    CHECK(lower::launch_dims(lower::lower(c->state, "k", params.target)).block == std::array<int64_t, 3>{threads, 1, 1});
    drawn.insert(threads);
  }
  CHECK(drawn == std::set<int64_t>{32, 64, 128});
  // Rows of 200: also the row in whole warps (7: 224 threads).
  const std::vector<State> long_rows = search::generate_sketches(op_dag("softmax", {{"shape", {2, 200}}}), params);
  drawn.clear();
  for (int k = 0; k < 40; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(long_rows.back(), rng, params);
    REQUIRE(c.has_value());
    drawn.insert(lower::launch_dims(*c->lowering->func).block[0]);
  }
  CHECK(drawn == std::set<int64_t>{32, 64, 128, 224, 256});
}

TEST_CASE("GPU sketches of a reduction output: a block per output, its threads sharing the reduction", "[unit]") {
  const std::vector<State> sketches =
      search::generate_sketches(op_dag("reduce_sum", {{"shape", {3, 5, 15}}, {"axes", {0, 2}}}), gpu_params());
  REQUIRE(sketches.size() == 2);
  const schedule::Stage& st = sketches.back().stages.back();
  REQUIRE(st.leaves.size() == 3);
  CHECK(st.leaf(0).annotation == IterAnnotation::BlockX);
  CHECK(st.leaf(0).extent == 5);
  CHECK(st.leaf(1).kind == ir::IterKind::Reduce);
  CHECK(st.leaf(2).annotation == IterAnnotation::ThreadX);
  CHECK(threads_sharing_reduction(st) == 1);
  // 13 iterations per output, no more than a warp: no sketch across threads.
  CHECK(search::generate_sketches(op_dag("reduce_sum", {{"shape", {7, 13}}}), gpu_params()).size() == 1);
}

TEST_CASE("GPU sketches of a matrix-vector product: across threads, beside the tiles", "[unit]") {
  // 64 outputs of 1024 iterations each: too few outputs for tiles alone.
  const std::vector<State> few = search::generate_sketches(op_dag("matmul", {{"M", 1}, {"N", 64}, {"K", 1024}}), gpu_params());
  REQUIRE(!few.empty());
  CHECK(threads_sharing_reduction(few.back().stages[schedule::stage_named(few.back(), "matmul")]) == 1);
  for (size_t k = 0; k + 1 < few.size(); ++k) CHECK(threads_sharing_reduction(few[k].stages.back()) == 0);
  // The tiled matmul of the first test has outputs enough.
  for (const State& s : search::generate_sketches(op_dag("matmul", {{"M", 128}, {"N", 256}, {"K", 64}}), gpu_params()))
    for (const schedule::Stage& st : s.stages) CHECK(threads_sharing_reduction(st) == 0);
}

TEST_CASE("GPU sketch of conv2d with bias and ReLU: the convolution fused into the ReLU's tiles", "[unit]") {
  const std::vector<State> sketches = search::generate_sketches(
      op_dag("conv2d", {{"N", 1}, {"C", 8}, {"H", 10}, {"W", 10}, {"K", 16}, {"R", 3}, {"S", 3}, {"pad", 1}, {"bias", true}, {"relu", true}}),
      gpu_params());
  // The second sketch stores the weight tile filter-innermost, as the
  // convolution's innermost loops walk it; the padded input's walk order
  // keeps its own innermost axis (the image row).
  REQUIRE(sketches.size() == 2);
  CHECK(sketches[1].stages[schedule::stage_named(sketches[1], "weight.shared")].storage_order ==
        std::vector<int>{1, 2, 3, 0});
  const State& s = sketches[0];
  const int out = static_cast<int>(s.stages.size()) - 1;
  CHECK(s.stages[out].leaf(2).annotation == IterAnnotation::ThreadX);
  CHECK(inside_thread_loop(s, schedule::stage_named(s, "conv2d"), out));
  CHECK(s.stages[schedule::stage_named(s, "conv2d_pad")].attach.kind == schedule::AttachKind::Inline);
  CHECK(s.stages[schedule::stage_named(s, "weight.shared")].op->buffer->scope == ir::MemScope::Shared);
}

TEST_CASE("GPU sketch of a matmul read through a reshape and transpose: the output walks the matmul's tiles",
          "[unit]") {
  // BERT's key projection: [seq, hidden] -> [heads, head dim, seq].
  const te::Tensor a = te::placeholder("A", {64, 64});
  const te::Tensor b = te::placeholder("B", {64, 128});
  const te::Tensor out = ops::transpose(ops::reshape(ops::matmul(a, b), {64, 8, 16}), {1, 2, 0});
  const search::SearchParams params = gpu_params();
  const std::vector<State> sketches =
      search::generate_sketches(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{out}), params);
  // Row-major shared tiles, and A's stored k-major.
  REQUIRE(sketches.size() == 2);
  const State& s = sketches[0];
  const int o = schedule::stage_named(s, "transpose"), mm = schedule::stage_named(s, "matmul");
  // The output's (seq, heads * head dim) tiles bound as the matmul's; the
  // matmul in registers at its thread loop, its inputs in shared tiles.
  CHECK(s.stages[o].leaf(0).annotation == IterAnnotation::BlockX);
  CHECK(s.stages[o].leaf(1).annotation == IterAnnotation::VThread);
  CHECK(s.stages[o].leaf(2).annotation == IterAnnotation::ThreadX);
  CHECK(inside_thread_loop(s, mm, o));
  for (const char* name : {"A.shared", "B.shared"})
    CHECK(s.stages[schedule::stage_named(s, name)].op->buffer->scope == ir::MemScope::Shared);
  // Each thread keeps exactly its tile of the matmul: bound inference sees
  // through the fused (head, head dim) loop's `(f // 16) * 16 + f % 16`.
  std::mt19937_64 rng(3);
  int wider_than_one = 0;
  for (int k = 0; k < 20; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(sketches[k % 2], rng, params);
    REQUIRE(c.has_value());
    const lower::LoweredFunc& func = *search::lower_candidate(*c, params.target).func;
    // The matmul's spatial tiles: the sketch's only splits of 4 lengths.
    int64_t tile = 1, n_tile = 1;
    for (const schedule::Step& step : c->state.history) {
      const auto* split = std::get_if<schedule::SplitStep>(&step);
      if (split == nullptr || split->lengths.size() != 4) continue;
      tile *= split->lengths[0] * split->lengths[2] * split->lengths[3];
      if (split->iter > 0) n_tile = split->lengths[2] * split->lengths[3];
    }
    test::Allocations allocations;
    allocations.visit(func.body);
    CHECK(allocations.elements.at("matmul") == tile);
    wider_than_one += n_tile > 1;
  }
  CHECK(wider_than_one > 5);
  // BERT's attention output, [heads, seq, dim] stored as [seq, heads * dim]:
  // its hidden axis split by the head dim, then bound as the product's tiles.
  const te::Tensor ctx = ops::batch_matmul(te::placeholder("P", {4, 32, 32}), te::placeholder("V", {4, 32, 16}));
  const te::Tensor merged = ops::reshape(ops::transpose(ctx, {1, 0, 2}), {32, 64});
  const std::vector<State> attention =
      search::generate_sketches(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{merged}), params);
  REQUIRE(!attention.empty());
  const State& tiled = attention[0];
  const int ao = schedule::stage_named(tiled, "reshape");
  CHECK(tiled.stages[ao].leaf(2).annotation == IterAnnotation::ThreadX);
  CHECK(inside_thread_loop(tiled, schedule::stage_named(tiled, "batch_matmul"), ao));
  for (int k = 0; k < 10; ++k) {
    std::optional<search::Candidate> c = search::annotate_randomly(attention[k % attention.size()], rng, params);
    REQUIRE(c.has_value());
    CHECK(search::lower_candidate(*c, params.target).func != nullptr);
  }
}
