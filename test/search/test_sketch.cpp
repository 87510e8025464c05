// Sketch generation and random annotation (search/sketch.h): every sketch and
// every annotated state of every registry op and of the small CNN's tasks
// lowers, JIT-compiles and computes the reference; generation and sampling
// are deterministic; the rules produce the structures they promise.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <set>

#include "backend/backend.h"
#include "check/reference_check.h"
#include "codegen/llvm/llvm_codegen.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "ops/pool.h"
#include "ops/registry.h"
#include "runtime/timer.h"
#include "search/mutation.h"
#include "search/sketch.h"
#include "search/sketch_rules.h"
#include "support/property_cases.h"
#include "tasks/extract.h"
#include "search_test_util.h"

using namespace tunectl;

namespace {

using schedule::State;

// Every sketch of dag and `full_samples` annotated states of each (CI: a
// share, support/property_cases.h) compute the reference; annotation
// succeeds for every sketch.
// The tiled stage's spatial splits of a sampled matmul (3 lengths), in
// history order: the first one is the last axis, whose innermost tile is
// the vector loop.
std::vector<const schedule::SplitStep*> tile_splits(const State& s) {
  std::vector<const schedule::SplitStep*> spatial;
  for (const schedule::Step& step : s.history)
    if (auto* split = std::get_if<schedule::SplitStep>(&step); split && split->lengths.size() == 3)
      spatial.push_back(split);
  return spatial;
}

// 40 annotated samples of dag's sketches under p.
std::vector<search::Candidate> samples(const std::shared_ptr<const te::ComputeDAG>& dag, const search::SearchParams& p,
                                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<search::Candidate> states = search::sample_initial_population(search::generate_sketches(dag, p), 40, rng, p);
  REQUIRE(states.size() == 40);
  return states;
}

void check_dag(const std::shared_ptr<const te::ComputeDAG>& dag, int full_samples, uint64_t seed) {
  const int samples = testing::property_cases(full_samples);
  std::vector<State> sketches = search::generate_sketches(dag);
  REQUIRE(!sketches.empty());
  std::mt19937_64 rng(seed);
  for (size_t k = 0; k < sketches.size(); ++k) {
    INFO("sketch " << k);
    test::check_computes_reference(*dag, sketches[k], seed);
    for (int i = 0; i < samples; ++i) {
      std::optional<search::Candidate> c = search::annotate_randomly(sketches[k], rng);
      REQUIRE(c.has_value());
      REQUIRE(c->lowering->func != nullptr);
      test::check_computes_reference(*dag, c->state, seed + i);
    }
  }
}

void check_registry(int samples) {
  for (const std::string& op : ops::op_names()) {
    uint64_t seed = 1;
    for (const auto& params : ops::test_configs(op)) {
      INFO(op << " " << params.dump());
      check_dag(std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params)), samples, seed++);
    }
  }
}

std::vector<tasks::Task> small_cnn_tasks() {
  std::filesystem::path path = std::filesystem::path(TUNECTL_SOURCE_DIR) / "models" / "small_cnn.onnx";
  graph::Graph g = graph::simplify_graph(graph::import_onnx(path.string()));
  return tasks::extract_tasks(graph::partition(g));
}

void check_small_cnn(int samples) {
  std::vector<tasks::Task> ts = small_cnn_tasks();
  REQUIRE(!ts.empty());
  uint64_t seed = 1;
  for (const tasks::Task& t : ts) {
    INFO("task " << t.name);
    check_dag(t.dag, samples, seed++);
  }
}

std::shared_ptr<const te::ComputeDAG> op_dag(const std::string& op, const nlohmann::json& params) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params));
}

int64_t product(const std::vector<int64_t>& shape) {
  int64_t p = 1;
  for (int64_t e : shape) p *= e;
  return p;
}

// The Winograd convolution of the registry's first config, by F(4x4, 3x3),
// and of its last, by F(2x2, 3x3).
std::vector<std::shared_ptr<const te::ComputeDAG>> winograd_dags() {
  const auto configs = ops::test_configs("conv2d_winograd_nchwc");
  return {op_dag("conv2d_winograd_nchwc", configs.front()), op_dag("conv2d_winograd_nchwc", configs.back())};
}

bool has_split(const State& s) {
  return std::any_of(s.history.begin(), s.history.end(),
                     [](const schedule::Step& st) { return std::holds_alternative<schedule::SplitStep>(st); });
}

}  // namespace

TEST_CASE("sketches and annotated states of every registry op compute the reference", "[sketch][cpu][property]") {
  check_registry(2);
}

TEST_CASE("sketches and annotated states of the small CNN's tasks compute the reference",
          "[sketch][cpu][property]") {
  check_small_cnn(2);
}

TEST_CASE("many annotated states of every registry op and small CNN task compute the reference",
          "[sketch][cpu][property][slow]") {
  check_registry(10);
  check_small_cnn(10);
}

TEST_CASE("sketch generation and sampling are deterministic", "[sketch][unit]") {
  for (const char* op : {"matmul", "conv2d", "softmax"}) {
    INFO(op);
    auto dag = op_dag(op, ops::test_configs(op).front());
    std::vector<State> a = search::generate_sketches(dag), b = search::generate_sketches(dag);
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) CHECK(schedule::states_equal(a[k], b[k]));
    std::mt19937_64 r1(7), r2(7), r3(8);
    std::vector<search::Candidate> p1 = search::sample_initial_population(a, 12, r1);
    std::vector<search::Candidate> p2 = search::sample_initial_population(a, 12, r2);
    std::vector<search::Candidate> p3 = search::sample_initial_population(a, 12, r3);
    REQUIRE(p1.size() == 12);
    REQUIRE(p1.size() == p2.size());
    for (size_t k = 0; k < p1.size(); ++k) CHECK(schedule::states_equal(p1[k].state, p2[k].state));
    // Another seed draws other states (not a constant sampler).
    std::set<std::string> s1, s3;
    for (const search::Candidate& c : p1) s1.insert(schedule::steps_to_json(c.state.history).dump());
    for (const search::Candidate& c : p3) s3.insert(schedule::steps_to_json(c.state.history).dump());
    CHECK(s1 != s3);
    CHECK(s1.size() > 1);
  }
}

TEST_CASE("matmul gets multi-level tiling with a cache-write stage", "[sketch][unit]") {
  auto dag = op_dag("matmul", {{"M", 64}, {"N", 64}, {"K", 64}});
  std::vector<State> sketches = search::generate_sketches(dag);
  bool cache_tiled = false, plain_tiled = false;
  for (const State& s : sketches) {
    INFO(s.to_string());
    for (const schedule::Stage& st : s.stages) {
      // SSRSRS: 2 spatial axes x 4 levels + 1 reduce axis x 2 levels.
      bool tiled = st.op->reduce() != nullptr && st.leaves.size() == 10;
      if (tiled && s.stages.size() == dag->ops().size()) plain_tiled = true;
      if (tiled && s.stages.size() == dag->ops().size() + 1 && st.attach.kind == schedule::AttachKind::Iter)
        cache_tiled = true;
    }
  }
  CHECK(plain_tiled);
  CHECK(cache_tiled);
}

TEST_CASE("matmul, gemm and padded conv2d get a sketch that packs the strided input per outer tile", "[sketch][unit]") {
  auto conv = op_dag("conv2d", {{"N", 1}, {"C", 8}, {"H", 8}, {"W", 8}, {"K", 16}, {"R", 3}, {"S", 3}, {"pad", 1},
                                {"bias", true}, {"relu", true}});
  auto matmul = op_dag("matmul", {{"M", 64}, {"N", 64}, {"K", 64}});
  auto gemm = op_dag("gemm", {{"M", 64}, {"N", 64}, {"K", 64}});
  struct Case {
    std::shared_ptr<const te::ComputeDAG> dag;
    const char* packed;
    bool prepacked;
  };
  // B of the matmul, the constant B of the gemm (prepacked: packed once
  // outside the kernel), the padded image of the convolution (read with y,
  // x but not the output channel).
  for (auto [dag, packed, prepacked] :
       {Case{matmul, "B.local", false}, Case{gemm, "B.local", true}, Case{conv, "conv2d_pad.local", false}}) {
    bool found = false;
    for (const State& s : search::generate_sketches(dag)) {
      for (const schedule::Stage& st : s.stages) {
        if (st.op->name != packed) continue;
        UNSCOPED_INFO(s.to_string());
        CHECK(st.prepacked == prepacked);
        // The copy sits at an outer tile loop of the root stage that holds
        // the tiled reduction.
        REQUIRE(st.attach.kind == schedule::AttachKind::Iter);
        const schedule::Stage& root = s.stages[st.attach.target_stage];
        CHECK(root.attach.kind == schedule::AttachKind::Root);
        CHECK(root.leaf_position(st.attach.target_iter) < static_cast<int>(root.op->axes.size()));
        found = true;
      }
    }
    CHECK(found);
    search::SearchParams off;
    off.enable_packing = false;
    for (const State& s : search::generate_sketches(dag, off))
      for (const schedule::Stage& st : s.stages) CHECK(st.op->name != packed);
  }
}

TEST_CASE("the register tile may fill three quarters of the target's vector registers", "[sketch][unit]") {
  // With AVX2's 16 registers a bound of 24 AVX-512 registers let the search
  // keep 16 accumulators live and spill them in the inner loop.
  const search::SearchParams avx512 = search::for_target({}, backend::resolve_target("llvm -mcpu=znver4"));
  CHECK(avx512.max_register_tile == 24 * 16);
  const search::SearchParams avx2 = search::for_target({}, backend::resolve_target("llvm -mcpu=x86-64-v3"));
  CHECK(avx2.max_register_tile == 12 * 8);
}

TEST_CASE("annotation draws aligned vector tiles, bounded register tiles and two-level tilings", "[sketch][unit]") {
  auto dag = op_dag("matmul", {{"M", 256}, {"N", 256}, {"K", 256}});
  search::SearchParams p;
  p.aligned_vector_tile_prob = 1;
  p.register_tile_prob = 1;
  p.two_level_tile_prob = 1;
  const std::vector<search::Candidate> states = samples(dag, p, 11);
  for (const search::Candidate& c : states) {
    INFO(schedule::steps_to_json(c.state.history).dump());
    std::vector<const schedule::SplitStep*> spatial = tile_splits(c.state);
    REQUIRE(spatial.size() == 2);
    CHECK(spatial[0]->lengths.back() % p.vector_lanes == 0);
    CHECK(spatial[0]->lengths.back() * spatial[1]->lengths.back() <= p.max_register_tile);
    for (const schedule::SplitStep* split : spatial) CHECK((split->lengths[0] == 1 && split->lengths[1] == 1));
  }
}

TEST_CASE("annotation may fill the register budget with a tile that does not divide its axis", "[sketch][unit]") {
  // 128 rows: divisors give the row tile 1, 2 or 4 under 64 vector lanes;
  // the whole budget is 384 / 64 = 6 rows, 24 accumulators.
  auto dag = op_dag("matmul", {{"M", 128}, {"N", 256}, {"K", 64}});
  search::SearchParams p;
  p.aligned_vector_tile_prob = 1;
  p.register_tile_prob = 1;
  p.full_register_tile_prob = 1;
  const std::vector<search::Candidate> states = samples(dag, p, 3);
  int non_dividing = 0;
  for (const search::Candidate& c : states) {
    INFO(schedule::steps_to_json(c.state.history).dump());
    std::vector<const schedule::SplitStep*> spatial = tile_splits(c.state);
    REQUIRE(spatial.size() == 2);
    const int64_t vector = spatial[0]->lengths.back();
    const schedule::SplitStep& rows = *spatial[1];
    int64_t outer = rows.lengths[0] * rows.lengths[1];
    CHECK(rows.lengths.back() == std::min(p.max_register_tile / vector, rows.extent / outer));
    if (rows.extent % (outer * rows.lengths.back()) != 0) ++non_dividing;
  }
  CHECK(non_dividing > 0);
}

TEST_CASE("a channel-blocked convolution's padding may stay a stage of its own", "[sketch][unit]") {
  // Inlined, the padding's bounds check runs on every input load of the
  // tiled convolution's inner loop; a sketch computes it first instead.
  auto padding_stages = [](int pad) {
    auto dag = op_dag("conv2d_nchwc", {{"C", 8}, {"H", 8}, {"W", 8}, {"K", 16}, {"bi", 8}, {"bo", 8}, {"pad", pad}});
    int inlined = 0, kept = 0;
    for (const State& s : search::generate_sketches(dag)) {
      for (const schedule::Stage& st : s.stages) {
        const te::Tensor& op = st.op;
        if (op->is_placeholder() || op->reduce() != nullptr || op->body.kind() != ir::ExprKind::Select) continue;
        UNSCOPED_INFO(s.to_string());
        if (st.attach.kind == schedule::AttachKind::Inline) ++inlined;
        if (st.attach.kind == schedule::AttachKind::Root) ++kept;
      }
    }
    return std::pair{inlined, kept};
  };
  const auto [inlined, kept] = padding_stages(1);
  CHECK(inlined > 0);
  CHECK(kept > 0);
  CHECK(padding_stages(0) == std::pair{0, 0});  // no padding, no such stage
}

TEST_CASE("conv2d + bias + relu gets the consumer-fusion sketch", "[sketch][unit]") {
  auto dag = op_dag("conv2d", {{"N", 1}, {"C", 8}, {"H", 8}, {"W", 8}, {"K", 16}, {"R", 3}, {"S", 3}, {"pad", 1},
                               {"bias", true}, {"relu", true}});
  std::vector<State> sketches = search::generate_sketches(dag);
  bool fused = false;
  for (const State& s : sketches) {
    UNSCOPED_INFO(s.to_string());
    // No inserted stage; the conv (a reduction) is computed inside the loops
    // of the output, which follows its tiles; bias add is inlined.
    if (s.stages.size() != dag->ops().size()) continue;
    for (const schedule::Stage& st : s.stages) {
      if (st.op->reduce() == nullptr || st.attach.kind != schedule::AttachKind::Iter) continue;
      const schedule::Stage& target = s.stages[st.attach.target_stage];
      int out = dag->index_of(target.op);
      if (out >= 0 && dag->is_output(out) && target.leaves.size() == 2 * target.op->axes.size()) fused = true;
    }
  }
  CHECK(fused);
}

TEST_CASE("a reduction of wide rows gets partial vectors per output, computed at its loop", "[sketch][cpu]") {
  // 80 rows of 40: too many rows for the small-spatial rfactor, reductions
  // long enough to vectorize (and not a multiple of 16).
  for (const char* op : {"softmax", "layer_norm"}) {
    INFO(op);
    auto dag = op_dag(op, {{"shape", {80, 40}}});
    std::vector<State> sketches = search::generate_sketches(dag);
    bool vector_rfactor = false;
    for (const State& s : sketches) {
      for (size_t k = 0; k + 1 < s.stages.size(); ++k) {
        const schedule::Stage& st = s.stages[k];
        if (st.op->name.size() < 3 || st.op->name.substr(st.op->name.size() - 3) != ".rf") continue;
        // Computed per row of the next stage, the partial lanes innermost.
        vector_rfactor = vector_rfactor || (st.attach.kind == schedule::AttachKind::Iter &&
                                            st.attach.target_stage == static_cast<int>(k) + 1 &&
                                            st.leaf(static_cast<int>(st.leaves.size()) - 1).kind == ir::IterKind::Spatial);
      }
    }
    CHECK(vector_rfactor);
    check_dag(dag, 6, 5);
  }
}

TEST_CASE("a vector rfactor's partial axis is drawn a multiple of the vector width", "[sketch][cpu]") {
  auto dag = op_dag("reduce_sum", {{"shape", {80, 128}}});
  std::vector<State> rfactored;
  for (const State& s : search::generate_sketches(dag))
    if (s.stages.size() > 2) rfactored.push_back(s);
  REQUIRE(rfactored.size() == 1);
  std::mt19937_64 rng(5);
  const int64_t lanes = search::SearchParams{}.vector_lanes;
  int aligned = 0, draws = 0;
  for (const search::Candidate& c : search::sample_initial_population(rfactored, 40, rng)) {
    const schedule::Stage& rf = c.state.stages[1];  // placeholder, partials, final
    const schedule::Iterator& lane = rf.leaf(static_cast<int>(rf.leaves.size()) - 1);
    aligned += lane.extent % lanes == 0;
    ++draws;
  }
  // 3 in 4 draws aligned (aligned_vector_tile_prob); unaligned ones only by chance.
  CHECK(aligned * 2 > draws);
}

TEST_CASE("a channel-blocked pooling gets a sketch that reduces outside its lanes, which vectorize", "[sketch][cpu]") {
  // SqueezeNet's global average pool in blocks of 16: in the op's order each
  // output's 169 points are summed lane by lane, a gather of stride 16.
  auto blocked = std::make_shared<const te::ComputeDAG>(
      std::vector<te::Tensor>{ops::global_avg_pool2d(te::placeholder("x", {1, 4, 13, 13, 16}))});
  auto lanes_last = [](const State& s) {
    const schedule::Stage& sum = s.stages[1];
    const int n = static_cast<int>(sum.leaves.size());
    return s.stages.size() == 3 && sum.leaf(n - 1).kind == ir::IterKind::Spatial &&
           sum.leaf(n - 2).kind == ir::IterKind::Reduce;
  };
  std::vector<State> sketches = search::generate_sketches(blocked);
  REQUIRE(std::count_if(sketches.begin(), sketches.end(), lanes_last) == 1);
  std::mt19937_64 rng(7);
  bool vectorized = false;
  for (const search::Candidate& c : search::sample_initial_population(sketches, 24, rng)) {
    if (!lanes_last(c.state)) continue;
    const schedule::Stage& sum = c.state.stages[1];
    vectorized = vectorized || sum.leaf(static_cast<int>(sum.leaves.size()) - 1).annotation ==
                                   schedule::IterAnnotation::Vectorize;
  }
  CHECK(vectorized);
  check_dag(blocked, 6, 9);
  // Reductions that read their innermost output axis elsewhere than as the
  // last index (rows of a softmax) or have no lanes (NCHW) get no such sketch.
  for (const auto& dag : {op_dag("softmax", {{"shape", {80, 40}}}),
                          std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{
                              ops::global_avg_pool2d(te::placeholder("x", {1, 64, 13, 13}))})}) {
    for (const State& s : search::generate_sketches(dag)) CHECK_FALSE(lanes_last(s));
  }
}

TEST_CASE("annotation parallelizes past a leading loop of extent 1", "[sketch][cpu]") {
  // A batch of one: fusing only the first loop would make a parallel loop of one iteration.
  auto dag = op_dag("relu", {{"shape", {1, 64, 32}}});
  std::mt19937_64 rng(3);
  for (const search::Candidate& c : search::sample_initial_population(search::generate_sketches(dag), 16, rng)) {
    const schedule::Stage& st = c.state.stages.back();
    REQUIRE(st.leaf(0).annotation == schedule::IterAnnotation::Parallel);
    CHECK(st.leaf(0).extent > 1);
  }
}

TEST_CASE("annotation splits a channel-blocked image by rows across the threads", "[sketch][cpu]") {
  // The parallel loop of the output stage fuses the rows' outer loop before
  // the channel blocks', so that each thread writes the rows the next
  // kernel's same thread reads.
  auto dag = op_dag("conv2d_nchwc", {{"C", 32}, {"H", 16}, {"W", 16}, {"K", 64}, {"bi", 16}, {"bo", 16}, {"pad", 1},
                                     {"bias", true}, {"relu", true}});
  // Outer loops by name: "<stage>_i2.0" (or "_i2", not split) for the rows,
  // "_i1.0" for the channel blocks; fused loops ("a@b@") are neither.
  auto outer_of = [](const std::string& name, const std::string& axis) {
    const auto ends_with = [&](const std::string& tail) {
      return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return name.find('@') == std::string::npos && (ends_with(axis) || ends_with(axis + ".0"));
  };
  std::mt19937_64 rng(7);
  int split_by_rows = 0, rows_outer_loops = 0;
  for (const search::Candidate& c : search::sample_initial_population(search::generate_sketches(dag), 40, rng)) {
    const schedule::Stage& out = c.state.stages.back();
    INFO(c.state.to_string());
    // A draw whose outer tiles are all of extent 1 has no parallel loop.
    if (out.leaf(0).annotation != schedule::IterAnnotation::Parallel) continue;
    std::vector<int> parallel = {out.leaves[0]};
    for (const schedule::IterRelation& rel : out.relations)
      if (const auto* fuse = std::get_if<schedule::FuseRelation>(&rel); fuse && fuse->child == out.leaves[0])
        parallel = fuse->parents;
    int rows = -1, blocks = -1;
    for (int k = 0; k < static_cast<int>(parallel.size()); ++k) {
      const schedule::Iterator& it = out.iters[parallel[k]];
      if (it.extent > 1 && outer_of(it.name, "_i2") && rows < 0) rows = k;
      if (it.extent > 1 && outer_of(it.name, "_i1") && blocks < 0) blocks = k;
    }
    if (rows >= 0) {
      ++split_by_rows;
      if (blocks >= 0) CHECK(rows < blocks);
    }
    // Where a stage is computed at a loop outside the rows (a sketch that
    // packs the weights per tile of output channels), the rows stay inside.
    int first_attach = static_cast<int>(out.leaves.size());
    for (const schedule::Stage& st : c.state.stages)
      if (st.attach.kind == schedule::AttachKind::Iter && &c.state.stages[st.attach.target_stage] == &out)
        first_attach = std::min(first_attach, out.leaf_position(st.attach.target_iter));
    for (int p = 0; p < static_cast<int>(out.leaves.size()); ++p) {
      const schedule::Iterator& it = out.leaf(p);
      if (it.extent > 1 && outer_of(it.name, "_i2") && p <= first_attach) ++rows_outer_loops;
    }
    if (rows >= 0) ++rows_outer_loops;
  }
  // Whenever the rows have an outer loop of more than one iteration, the
  // threads split them (the parallel loop fuses at least its first real loop).
  CHECK(split_by_rows > 0);
  CHECK(split_by_rows == rows_outer_loops);
}

TEST_CASE("Winograd transforms: each first pass computed per tile inside its second, both unrolled over the tile, "
          "only the products tiled",
          "[sketch][unit]") {
  for (const auto& dag : winograd_dags()) {
    std::vector<State> sketches = search::generate_sketches(dag);
    REQUIRE(!sketches.empty());
    for (const State& s : sketches) {
      INFO(s.to_string());
      int fused_passes = 0;
      for (const schedule::Stage& st : s.stages) {
        if (st.op->tag != "winograd" || st.attach.kind != schedule::AttachKind::Iter) continue;
        const schedule::Stage& second = s.stages[st.attach.target_stage];
        if (second.op->tag != "winograd") continue;  // a second pass computed in a row of tiles (next test)
        // Attached at tiles.inner, the third loop of (tiles.outer, blocks, tiles.inner, rows, columns, lanes);
        // inside a row of tiles at blocks, the second of (tiles, blocks, rows, columns, lanes).
        const bool in_block = second.attach.kind == schedule::AttachKind::Iter;
        const int tile = in_block ? 1 : 2;
        CHECK(second.leaf_position(st.attach.target_iter) == tile);
        REQUIRE(second.leaves.size() == (in_block ? 5 : 6));
        REQUIRE(st.leaves.size() == 5);  // (tiles, blocks, columns, rows, lanes)
        // Rows and columns unrolled in both passes, so that the selects over the formulas fold.
        for (int leaf : {tile + 1, tile + 2}) CHECK(second.leaf(leaf).annotation == schedule::IterAnnotation::Unroll);
        for (int leaf : {2, 3}) CHECK(st.leaf(leaf).annotation == schedule::IterAnnotation::Unroll);
        ++fused_passes;
      }
      CHECK(fused_passes == 2);
      for (const schedule::Stage& st : s.stages)
        if (st.op->tag == "conv2d" && st.attach.kind == schedule::AttachKind::Root) CHECK(st.leaves.size() > 7);
    }
  }
}

TEST_CASE("Winograd by rows of tiles: the image's rows split by the tile size, the input side per row of tiles, "
          "the output transform per channel block, kept so by annotation and mutation",
          "[sketch][unit]") {
  for (const auto& dag : winograd_dags()) {
    int block_sketches = 0;
    for (const State& s : search::generate_sketches(dag)) {
      INFO(s.to_string());
      const int out = static_cast<int>(s.stages.size()) - 1;  // the image, the op's output
      const schedule::Stage& image = s.stages[out];
      std::map<std::string, int> attached_at;  // op name -> the image's loop position
      for (const schedule::Stage& st : s.stages)
        if (st.attach.kind == schedule::AttachKind::Iter && st.attach.target_stage == out)
          attached_at[st.op->name] = image.leaf_position(st.attach.target_iter);
      if (attached_at.empty()) continue;
      ++block_sketches;
      // (batch, tile rows, channel blocks, rows in the tile, columns, lanes), the rows split by m.
      REQUIRE(image.leaves.size() == 6);
      int64_t tile = 0;
      for (const schedule::Stage& st : s.stages)
        if (st.op->name.ends_with("output_transform")) tile = st.op->axes[0].extent;
      CHECK((tile == 4 || tile == 2));
      CHECK(image.leaf(3).extent == tile);
      for (const auto& [name, position] : attached_at) {
        INFO(name);
        if (name.ends_with("output_transform")) CHECK(position == 2);
        else CHECK(position == 1);  // the input transform, the products (and the padding when it is a stage)
      }
      CHECK(attached_at.size() >= 3);
      // Annotated, the rows stay split by the tile size, and each block
      // pads and transforms its own rows only, however the stages inside
      // tile them; mutated, by a multiple of it (a split through the tiles
      // is no valid mutation).
      std::mt19937_64 rng(7);
      for (int draw = 0; draw < 20; ++draw) {
        std::optional<search::Candidate> drawn = search::annotate_randomly(s, rng);
        REQUIRE(drawn.has_value());
        CHECK(search::winograd_blocks_exact(drawn->state));
        test::Allocations allocated;
        allocated.visit(drawn->lowering->func->body);
        for (const schedule::Stage& st : s.stages) {
          const bool per_block = st.op->name.ends_with("_pad") || st.op->name.ends_with("input_transform");
          if (per_block && allocated.elements.contains(st.op->name))
            CHECK(allocated.elements.at(st.op->name) < product(st.op->shape()));
        }
      }
      std::optional<search::Candidate> c = search::annotate_randomly(s, rng);
      REQUIRE(c.has_value());
      for (const schedule::IterRelation& rel : c->state.stages[out].relations)
        if (const auto* split = std::get_if<schedule::SplitRelation>(&rel); split && split->parent == 2)
          CHECK(c->state.stages[out].iters[split->children.back()].extent == tile);
      for (int k = 0; k < 100; ++k)
        if (std::optional<State> mutated = search::mutate(c->state, rng))
          CHECK(search::winograd_blocks_exact(*mutated));
      std::vector<schedule::Step> cut = c->state.history;
      for (schedule::Step& step : cut)
        if (auto* split = std::get_if<schedule::SplitStep>(&step); split && split->lengths == std::vector<int64_t>{tile})
          split->lengths = {tile + 1};
      std::optional<State> through_tiles = schedule::try_replay(dag, cut);
      REQUIRE(through_tiles.has_value());
      CHECK(!search::winograd_blocks_exact(*through_tiles));
    }
    CHECK(block_sketches >= 1);
  }
}

TEST_CASE("elementwise-only DAGs get no tiling", "[sketch][unit]") {
  for (const char* op : {"leaky_relu", "clip", "transpose"}) {
    INFO(op);
    for (const State& s : search::generate_sketches(op_dag(op, ops::test_configs(op).front()))) CHECK(!has_split(s));
  }
}

TEST_CASE("matmul 512^3 sketches and annotated samples' speed range (printed)", "[sketch][bench][.]") {
  auto dag = op_dag("matmul", {{"M", 512}, {"N", 512}, {"K", 512}});
  std::vector<State> sketches = search::generate_sketches(dag);
  for (const State& s : sketches) std::printf("sketch: %s\n", schedule::steps_to_json(s.history).dump().c_str());
  std::mt19937_64 rng(3);
  std::vector<search::Candidate> pop = search::sample_initial_population(sketches, 8, rng);
  REQUIRE(!pop.empty());
  std::vector<runtime::NDArray> args;
  for (const te::Tensor& t : dag->placeholders()) args.emplace_back(ir::DType::Float32, t->shape());
  for (const te::Tensor& t : dag->outputs()) args.emplace_back(ir::DType::Float32, t->shape());
  std::vector<void*> raw;
  for (auto& a : args) raw.push_back(a.raw());
  double best = 1e30, worst = 0;
  for (const search::Candidate& c : pop) {
    std::unique_ptr<runtime::Kernel> kernel = backend::host_backend()->build(*c.lowering->func);
    std::vector<runtime::NDArray> packed;
    std::vector<void*> kernel_args = kernel->pack_inputs(raw, packed);
    runtime::TimingOptions opt;
    opt.repeats = 3;
    double t = runtime::time_function([&] { kernel->run(kernel_args.data()); }, opt).median();
    best = std::min(best, t);
    worst = std::max(worst, t);
  }
  double gflop = dag->flop_count() * 1e-9;
  std::printf("matmul 512^3, %zu random samples: best %.1f GFLOP/s, worst %.1f GFLOP/s\n", pop.size(),
              gflop / best, gflop / worst);
  std::printf("one sample: %s\n", schedule::steps_to_json(pop.front().state.history).dump().c_str());
}
