// Program features: the loop structure a schedule creates shows up in the
// rows (vector lanes, parallel extent, local accumulator bytes), and every
// op's default and random schedules give rows of the fixed width, all finite.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "lower/lower.h"
#include "ops/registry.h"
#include "support/random_schedule.h"
#include "schedule/state.h"
#include "search/features.h"

using namespace tunectl;

namespace {

size_t column(const std::string& name) {
  const auto& names = search::feature_names();
  auto it = std::find(names.begin(), names.end(), name);
  REQUIRE(it != names.end());
  return static_cast<size_t>(it - names.begin());
}

float encoded(double x) { return static_cast<float>(std::log2(1.0 + x)); }

std::shared_ptr<const te::ComputeDAG> matmul_dag(int64_t n) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", n}, {"N", n}, {"K", n}}));
}

schedule::State apply_steps(std::shared_ptr<const te::ComputeDAG> dag, const nlohmann::json& steps) {
  return schedule::replay(std::move(dag), schedule::steps_from_json(steps));
}

// The row of the reduction update (the store that reads what it writes).
std::vector<float> update_row(const std::vector<std::vector<float>>& rows) {
  for (const auto& r : rows) {
    if (r[column("is_update")] == encoded(1)) return r;
  }
  FAIL("no update store among " << rows.size() << " rows");
  return {};
}

std::vector<std::vector<float>> update_rows(const std::vector<std::vector<float>>& rows) {
  std::vector<std::vector<float>> out;
  for (const auto& r : rows)
    if (r[column("is_update")] == encoded(1)) out.push_back(r);
  return out;
}

const ir::AllocateNode* find_allocate(const ir::Stmt& s) {
  if (!s) return nullptr;
  if (auto* a = s.as<ir::AllocateNode>()) return a;
  if (auto* f = s.as<ir::ForNode>()) return find_allocate(f->body);
  if (auto* seq = s.as<ir::SeqNode>()) {
    for (const auto& x : seq->stmts) {
      if (auto* a = find_allocate(x)) return a;
    }
  }
  if (auto* i = s.as<ir::IfThenElseNode>()) {
    if (auto* a = find_allocate(i->then_case)) return a;
    return find_allocate(i->else_case);
  }
  return nullptr;
}

}  // namespace

TEST_CASE("feature names are unique and match the row width", "[cpu]") {
  const auto& names = search::feature_names();
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  auto rows = search::extract_features(lower::lower(schedule::State::initial(matmul_dag(8)), "k"));
  REQUIRE(!rows.empty());
  for (const auto& r : rows) CHECK(r.size() == names.size());
}

TEST_CASE("features: vector lanes and parallel extent of a matmul", "[cpu]") {
  // C = stage 2 with leaves i, j, k: split j by 16, move j.1 innermost,
  // vectorize it and parallelize i.
  auto dag = matmul_dag(64);
  auto state = apply_steps(dag, nlohmann::json::parse(R"([
      ["SP", 2, 1, 64, [16], true], ["RE", 2, [0, 1, 3, 2]],
      ["AN", 2, 3, "vectorize"], ["AN", 2, 0, "parallel"]])"));
  auto rows = search::extract_features(lower::lower(state, "k"));
  auto row = update_row(rows);
  CHECK(row[column("vec_len")] == encoded(16));
  CHECK(row[column("vec_inner_loops")] == encoded(0));
  CHECK(row[column("parallel_product")] == encoded(64));
  CHECK(row[column("trip_product")] == encoded(64.0 * 64 * 64));
  CHECK(row[column("num_loops")] == encoded(4));
  // 2 float ops per multiply-add, 64^3 times.
  CHECK(row[column("float_add_sub")] == encoded(64.0 * 64 * 64));
  CHECK(row[column("float_mul")] == encoded(64.0 * 64 * 64));
  // A and B are 16 KiB each; C's row of 16 is updated in a buffer of its
  // own around k (lower/promote_accumulators.h), 64 bytes. The innermost
  // j.1 loop walks B and that row with stride 1 (16 floats = one cache
  // line) and keeps A's element.
  CHECK(row[column("num_buffers")] == encoded(3));
  for (int b = 0; b < 2; ++b) CHECK(row[column("b" + std::to_string(b) + "_bytes")] == encoded(64 * 64 * 4));
  CHECK(row[column("b2_bytes")] == encoded(16 * 4));
  CHECK(row[column("b3_bytes")] == 0.0f);
  float strides[3], lines[3];
  for (int b = 0; b < 3; ++b) {
    strides[b] = row[column("b" + std::to_string(b) + "_stride")];
    lines[b] = row[column("b" + std::to_string(b) + "_lines")];
  }
  std::sort(strides, strides + 3);
  CHECK(strides[0] == encoded(0));
  CHECK(strides[2] == encoded(1));
  CHECK(*std::max_element(lines, lines + 3) == encoded(1));

  // The unscheduled program has neither.
  auto plain = update_row(search::extract_features(lower::lower(schedule::State::initial(dag), "k")));
  CHECK(plain[column("vec_len")] == 0.0f);
  CHECK(plain[column("parallel_product")] == 0.0f);
}

TEST_CASE("features: guards of a non-dividing split are counted, executions stay within the trips", "[cpu]") {
  // j (64) split by [6], j.1 innermost and vectorized: 11 x 6 = 66 columns,
  // 2 of them guarded off by j.0 * 6 + j.1 < 64. partition_loops cuts the
  // serial j.0 after 10 whole tiles (a vector loop is not cut): one update
  // store without the guard (60 columns), one with it (6, 4 executed).
  // (Inner parts never outrun their parent: lowering shrinks them,
  // leaf_loops.h; the overshoot is the outer part's.)
  auto dag = matmul_dag(64);
  auto state = apply_steps(dag, nlohmann::json::parse(
                                    R"([["SP", 2, 1, 64, [6], true], ["RE", 2, [0, 1, 3, 2]], ["AN", 2, 3, "vectorize"]])"));
  std::vector<std::vector<float>> rows = update_rows(search::extract_features(lower::lower(state, "k")));
  REQUIRE(rows.size() == 2);
  const auto& whole = rows[0][column("guard_ops")] == 0.0f ? rows[0] : rows[1];
  const auto& partial = &whole == &rows[0] ? rows[1] : rows[0];
  CHECK(whole[column("trip_product")] == encoded(64.0 * 60 * 64));
  CHECK(whole[column("exec_product")] == whole[column("trip_product")]);
  CHECK(partial[column("trip_product")] == encoded(64.0 * 6 * 64));
  CHECK(partial[column("exec_product")] <= partial[column("trip_product")]);
  CHECK(partial[column("exec_product")] >= encoded(64.0 * 4 * 64));
  CHECK(partial[column("float_mul")] == partial[column("exec_product")]);
  CHECK(partial[column("guard_ops")] > 0.0f);
  auto plain = update_row(search::extract_features(lower::lower(schedule::State::initial(dag), "k")));
  CHECK(plain[column("guard_ops")] == 0.0f);
  CHECK(plain[column("exec_product")] == plain[column("trip_product")]);
  // With a serial i.0 the partial tile is cut off whole: 60 rows and 4, and
  // no guard left.
  auto serial = apply_steps(dag, nlohmann::json::parse(R"([["SP", 2, 0, 64, [6], true]])"));
  std::vector<std::vector<float>> cut = update_rows(search::extract_features(lower::lower(serial, "k")));
  REQUIRE(cut.size() == 2);
  for (const auto& r : cut) CHECK(r[column("guard_ops")] == 0.0f);
  CHECK(cut[0][column("trip_product")] == encoded(60.0 * 64 * 64));
  CHECK(cut[1][column("trip_product")] == encoded(4.0 * 64 * 64));
}

TEST_CASE("features: a guard on a fused loop's remainder bounds nothing", "[cpu]") {
  // j split by [6] and fused with i into one parallel loop of 64 x 11: the
  // guard reads `f % 11 * 6 + j.1 < 64`, which steps by 6 from f = 0 to 1
  // but wraps at 11, so it does not bound f to 11 iterations. 64 of every
  // 66 columns run: BERT's constructed layer norm was costed as one row of
  // 128 for this (0.8% of its executions).
  auto dag = matmul_dag(64);
  auto state = apply_steps(dag, nlohmann::json::parse(R"([
      ["SP", 2, 1, 64, [6], true], ["RE", 2, [0, 1, 3, 2]], ["FU", 2, [0, 1]],
      ["AN", 2, 2, "vectorize"], ["AN", 2, 0, "parallel"]])"));
  const std::vector<float> row = update_row(search::extract_features(lower::lower(state, "k")));
  CHECK(row[column("guard_ops")] > 0.0f);
  CHECK(row[column("trip_product")] == encoded(64.0 * 66 * 64));
  CHECK(row[column("exec_product")] == row[column("trip_product")]);
}

TEST_CASE("features: a local accumulator reports its bytes", "[cpu]") {
  // cache_write C into local (C.local becomes stage 2, C stage 3), tile C's
  // i and j by 4 x 8 and compute C.local inside the j tile loop: C.local is
  // then a 4 x 8 accumulator allocated once per tile.
  auto dag = matmul_dag(32);
  auto state = apply_steps(dag, nlohmann::json::parse(R"([
      ["CHW", 2, "local"],
      ["SP", 3, 0, 32, [4], true], ["SP", 3, 2, 32, [8], true], ["RE", 3, [0, 2, 1, 3]],
      ["CA", 2, 3, 1]])"));
  auto func = lower::lower(state, "k");
  const ir::AllocateNode* alloc = find_allocate(func.body);
  REQUIRE(alloc != nullptr);
  CHECK(alloc->buffer->scope == ir::MemScope::Local);
  int64_t bytes = alloc->buffer->num_elements() * 4;
  CHECK(bytes == 4 * 8 * 4);
  auto rows = search::extract_features(func);
  int local_rows = 0;
  for (const auto& r : rows) {
    if (r[column("alloc_bytes")] == 0.0f) continue;
    ++local_rows;
    CHECK(r[column("alloc_bytes")] == encoded(static_cast<double>(bytes)));
    CHECK(r[column("alloc_trips")] == encoded(8 * 4));  // one per 4 x 8 tile of 32 x 32
  }
  CHECK(local_rows >= 2);  // initialization and update
  // The copy-out to C stores into an argument.
  CHECK(local_rows < static_cast<int>(rows.size()));
}

TEST_CASE("features: fixed width and finite for every op, default and random schedules", "[cpu]") {
  const size_t width = search::feature_names().size();
  for (const auto& op : ops::op_names()) {
    std::mt19937_64 rng(7);
    for (const auto& params : ops::test_configs(op)) {
      auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params));
      std::vector<schedule::State> states{schedule::State::initial(dag)};
      for (int i = 0; i < 8; ++i) states.push_back(schedule::random_schedule(dag, rng, 4 + static_cast<int>(rng() % 12)));
      for (const auto& state : states) {
        INFO(op << " " << params.dump() << " steps " << schedule::steps_to_json(state.history).dump());
        auto rows = search::extract_features(lower::lower(state, "k"));
        REQUIRE(!rows.empty());
        for (const auto& r : rows) {
          REQUIRE(r.size() == width);
          for (float x : r) REQUIRE((std::isfinite(x) && x >= 0.0f));
        }
      }
    }
  }
}

TEST_CASE("features: where a buffer's cache lines come back, and how many of one L1 set come between", "[cpu]") {
  // C[96 x 16] += A[96 x K] * B[K x 16], A's rows `lda` apart, loops io
  // (6), k (512), ii (16), j (16, vectorized). A's lines come back at the
  // next k, 16 x 16 statements later, and in between its 16 rows touch a
  // line each: 4 KiB apart (lda 1024) all in one L1 set, 4160 bytes apart
  // (lda 1040) each in its own. B's line comes back at the next ii.
  auto row_for = [](int64_t lda) {
    ir::Buffer a("A", ir::DType::Float32, {96 * lda}), b("B", ir::DType::Float32, {512 * 16}),
        c("C", ir::DType::Float32, {96 * 16});
    ir::Var io("io"), k("k"), ii("ii"), j("j");
    const ir::Expr row = io * 16 + ii;
    ir::Stmt s = ir::make_store(c, {row * 16 + j},
                                ir::make_load(c, {row * 16 + j}) +
                                    ir::make_load(a, {row * lda + k}) * ir::make_load(b, {k * 16 + j}));
    s = ir::make_for(j, 0, 16, ir::ForKind::Vectorized, s);
    s = ir::make_for(ii, 0, 16, ir::ForKind::Serial, s);
    s = ir::make_for(k, 0, 512, ir::ForKind::Serial, s);
    s = ir::make_for(io, 0, 6, ir::ForKind::Serial, s);
    return update_row(search::extract_features(lower::LoweredFunc{"k", {a, b, c}, s}));
  };
  const std::vector<float> aliased = row_for(1024), padded = row_for(1040);
  // Buffers by bytes touched: A (96 x 512 floats), B, C.
  CHECK(aliased[column("innermost_extent")] == encoded(16));
  CHECK(aliased[column("b0_line_reuse_distance")] == encoded(256));
  CHECK(aliased[column("b0_set_conflict_lines")] == encoded(16));
  CHECK(padded[column("b0_set_conflict_lines")] == encoded(1));
  CHECK(aliased[column("b1_line_reuse_distance")] == encoded(16));
  CHECK(aliased[column("b1_set_conflict_lines")] == encoded(1));
  CHECK(aliased[column("b2_is_write")] == encoded(1));
}

TEST_CASE("features: what a matmul's B panel brings into the L1 and the L2, held there or not", "[cpu]") {
  // C[32 x 32] += A[32 x 1024] * B[1024 x ldb] (a panel of 32 columns),
  // loops io (8), k (1024), ii (4), j (32, vectorized), on a core of 32 KiB
  // L1 and 1 MiB L2. One row block's working set is B's 128 KiB panel, 16
  // KiB of A and C's 512 bytes. Packed (ldb 32) the whole nest fits half
  // the L2: B comes once. Rows 4 KiB apart (ldb 1024) put 32 of the panel's
  // lines in each L2 set it uses, more than its 8 ways: B comes again for
  // every row block. Neither panel stays in the L1 across k.
  target::Target core;
  core.l1d_bytes = 32 << 10;
  core.l2_bytes = 1 << 20;
  auto row_for = [&](int64_t ldb) {
    ir::Buffer a("A", ir::DType::Float32, {32 * 1024}), b("B", ir::DType::Float32, {1024 * ldb}),
        c("C", ir::DType::Float32, {32 * 32});
    ir::Var io("io"), k("k"), ii("ii"), j("j");
    const ir::Expr row = io * 4 + ii;
    ir::Stmt s = ir::make_store(c, {row * 32 + j},
                                ir::make_load(c, {row * 32 + j}) +
                                    ir::make_load(a, {row * 1024 + k}) * ir::make_load(b, {k * ldb + j}));
    s = ir::make_for(j, 0, 32, ir::ForKind::Vectorized, s);
    s = ir::make_for(ii, 0, 4, ir::ForKind::Serial, s);
    s = ir::make_for(k, 0, 1024, ir::ForKind::Serial, s);
    s = ir::make_for(io, 0, 8, ir::ForKind::Serial, s);
    return update_row(search::extract_features(lower::LoweredFunc{"k", {a, b, c}, s}, core));
  };
  const std::vector<float> packed = row_for(32), aliased = row_for(1024);
  // Buffers by bytes touched: A and B (128 KiB each, A first), C.
  CHECK(packed[column("b1_l2_traffic")] == encoded(128 << 10));
  CHECK(aliased[column("b1_l2_traffic")] == encoded(8 * (128 << 10)));
  CHECK(packed[column("b0_l2_traffic")] == encoded(128 << 10));
  CHECK(aliased[column("b0_l2_traffic")] == encoded(8 * (16 << 10)));
  CHECK(packed[column("b1_l1_traffic")] == encoded(8 * (128 << 10)));
  CHECK(aliased[column("b1_l1_traffic")] == encoded(8 * (128 << 10)));
}

TEST_CASE("features: a packed panel of three fifths of the L2 stays there across row blocks", "[cpu]") {
  // C[32 x 48] += A[32 x 3072] * B[3072 x 48], loops io (8), k (3072), ii
  // (4), j (48, vectorized): BERT's FFN output layer in 8 row blocks of 4
  // (its tuned 8 x 48 tile ran at 226 GFLOP/s on Zen 4's 1 MiB L2, as only
  // a held panel allows). One row block's working set, B's 576 KiB panel,
  // 48 KiB of A and C's 768 bytes, fits three quarters of the L2: B comes
  // once, not once per row block.
  target::Target core;
  core.l1d_bytes = 32 << 10;
  core.l2_bytes = 1 << 20;
  ir::Buffer a("A", ir::DType::Float32, {32 * 3072}), b("B", ir::DType::Float32, {3072 * 48}),
      c("C", ir::DType::Float32, {32 * 48});
  ir::Var io("io"), k("k"), ii("ii"), j("j");
  const ir::Expr row = io * 4 + ii;
  ir::Stmt s = ir::make_store(
      c, {row * 48 + j}, ir::make_load(c, {row * 48 + j}) + ir::make_load(a, {row * 3072 + k}) * ir::make_load(b, {k * 48 + j}));
  s = ir::make_for(j, 0, 48, ir::ForKind::Vectorized, s);
  s = ir::make_for(ii, 0, 4, ir::ForKind::Serial, s);
  s = ir::make_for(k, 0, 3072, ir::ForKind::Serial, s);
  s = ir::make_for(io, 0, 8, ir::ForKind::Serial, s);
  const std::vector<float> row_features = update_row(search::extract_features(lower::LoweredFunc{"k", {a, b, c}, s}, core));
  // Buffers by bytes touched: B (576 KiB), A (384 KiB), C.
  CHECK(row_features[column("b0_bytes")] == encoded(576 << 10));
  CHECK(row_features[column("b0_l2_traffic")] == encoded(576 << 10));
}

TEST_CASE("features: integer ops that stay in the innermost loop, and those that leave it", "[cpu]") {
  // out[i] = in[i / 56 * 64 + i % 56] over a fused loop of 3584: the
  // division and the remainder move with it (4 instructions each). Over
  // o (64) and x (56), out[o * 56 + x] = in[o * 64 + x] has none to keep.
  ir::Buffer in("In", ir::DType::Float32, {64 * 64}), out("Out", ir::DType::Float32, {64 * 56});
  ir::Var i("i"), o("o"), x("x");
  const ir::Stmt fused =
      ir::make_for(i, 0, 3584, ir::ForKind::Serial,
                   ir::make_store(out, {i}, ir::make_load(in, {i / 56 * 64 + i % 56})));
  const ir::Stmt nested = ir::make_for(
      o, 0, 64, ir::ForKind::Serial,
      ir::make_for(x, 0, 56, ir::ForKind::Serial, ir::make_store(out, {o * 56 + x}, ir::make_load(in, {o * 64 + x}))));
  CHECK(search::extract_features(lower::LoweredFunc{"k", {in, out}, fused})[0][column("inner_int_ops")] ==
        encoded(8 * 3584));
  CHECK(search::extract_features(lower::LoweredFunc{"k", {in, out}, nested})[0][column("inner_int_ops")] ==
        encoded(0));
}

TEST_CASE("features: a select the unrolled loop decides costs its costlier arm, one the kept loop decides all",
          "[cpu]") {
  // Out[e * 64 + j] = select(e == 0, A * B + C, select(e == 1, A - B, A))
  // over e (3) and j (64): a Winograd pass's chain of formulas on its row.
  // Unrolled, each copy of e keeps one arm: a multiply and an add per
  // element. Parallel (a loop the code keeps), every element evaluates
  // both selects and every arm.
  ir::Buffer a("A", ir::DType::Float32, {64}), b("B", ir::DType::Float32, {64}), c("C", ir::DType::Float32, {64}),
      out("Out", ir::DType::Float32, {3 * 64});
  ir::Var e("e"), j("j");
  auto pass = [&](ir::ForKind kind) {
    const ir::Expr la = ir::make_load(a, {j}), lb = ir::make_load(b, {j});
    const ir::Expr value = ir::make_select(
        ir::make_binary(ir::ExprKind::EQ, e, ir::make_int(0)), la * lb + ir::make_load(c, {j}),
        ir::make_select(ir::make_binary(ir::ExprKind::EQ, e, ir::make_int(1)), la - lb, la));
    const ir::Stmt s = ir::make_for(
        j, 0, 64, ir::ForKind::Parallel,
        ir::make_for(e, 0, 3, kind, ir::make_store(out, {e * 64 + j}, value)));
    return search::extract_features(lower::LoweredFunc{"k", {a, b, c, out}, s})[0];
  };
  const std::vector<float> unrolled = pass(ir::ForKind::Unrolled), kept = pass(ir::ForKind::Parallel);
  CHECK(unrolled[column("float_mul")] == encoded(3 * 64));
  CHECK(unrolled[column("float_add_sub")] == encoded(3 * 64));
  CHECK(unrolled[column("float_select")] == encoded(0));
  CHECK(kept[column("float_mul")] == encoded(3 * 64));
  CHECK(kept[column("float_add_sub")] == encoded(2 * 3 * 64));
  CHECK(kept[column("float_select")] == encoded(2 * 3 * 64));
}

namespace {

// A 7x7 stem's inner nest on 16 lanes: Out[ch * 224 + x * 16 + lane] +=
// In[r * 37 + x * 74 + 2 * lane] * W[(co * 4 + ch) * 7 + r], In read with
// a stride of 2, over co (64), r (7), ch (4) and x (14) unrolled, lane (16)
// vectorized; `channels_outside` puts ch, still unrolled, outside r.
std::vector<float> stem_row(bool channels_outside) {
  target::Target avx512;
  avx512.vector_lanes = 16;
  ir::Buffer in("In", ir::DType::Float32, {2048}), w("W", ir::DType::Float32, {64 * 4 * 7}),
      out("Out", ir::DType::Float32, {4 * 224});
  ir::Var co("co"), r("r"), ch("ch"), x("x"), lane("lane");
  const ir::Expr acc = ch * 224 + x * 16 + lane;
  ir::Stmt s = ir::make_store(out, {acc},
                              ir::make_load(out, {acc}) + ir::make_load(in, {r * 37 + x * 74 + lane * 2}) *
                                                              ir::make_load(w, {(co * 4 + ch) * 7 + r}));
  s = ir::make_for(lane, 0, 16, ir::ForKind::Vectorized, s);
  s = ir::make_for(x, 0, 14, ir::ForKind::Unrolled, s);
  if (channels_outside) {
    s = ir::make_for(r, 0, 7, ir::ForKind::Serial, s);
    s = ir::make_for(ch, 0, 4, ir::ForKind::Unrolled, s);
  } else {
    s = ir::make_for(ch, 0, 4, ir::ForKind::Unrolled, s);
    s = ir::make_for(r, 0, 7, ir::ForKind::Serial, s);
  }
  s = ir::make_for(co, 0, 64, ir::ForKind::Serial, s);
  return update_row(search::extract_features(lower::LoweredFunc{"k", {in, w, out}, s}, avx512));
}

}  // namespace

TEST_CASE("features: a load issues once for the unrolled copies that share it and the loops it leaves", "[cpu]") {
  // Buffers by bytes touched: W (1792 elements), In (1568), Out (896).
  const std::vector<float> inside = stem_row(false), outside = stem_row(true);
  REQUIRE(inside[column("b0_bytes")] == encoded(1792 * 4));
  REQUIRE(inside[column("b1_bytes")] == encoded(1568 * 4));
  // In's row, shuffled from stride 2, serves the 4 channels unrolled inside
  // r; unrolled outside r (a loop LLVM keeps: 7 x 14 registers' worth), each
  // channel runs its own loop over r and loads it.
  CHECK(inside[column("b1_load_share")] == encoded(1.0 / 4));
  CHECK(outside[column("b1_load_share")] == encoded(1.0));
  // W's weight moves with neither x nor the lanes: one broadcast for 14 x 16.
  CHECK(inside[column("b0_load_share")] == encoded(1.0 / (14 * 16)));
}

TEST_CASE("features: an accumulator whose innermost kept loop moves it lives in memory", "[cpu]") {
  // A 2 x 2 tile of two-register rows (32 lanes on 16) inside a reduction
  // loop rc1 inside a tile loop t: LLVM unrolls a reduction loop of 8 (64
  // registers' worth) whole and keeps t, which moves the accumulator, loaded
  // and stored around each run of 8 updates; one of 32 it keeps, loading
  // the tile before it and storing it after. Either way the unrolled block
  // inside the kept loop updates the tile's 4 rows (32 or 4 updates).
  target::Target avx512;
  avx512.vector_lanes = 16;
  auto in_memory = [&](int64_t rc1_extent) {
    ir::Buffer in("In", ir::DType::Float32, {64 * 4 * 32}), w("W", ir::DType::Float32, {64 * 4}),
        out("Out", ir::DType::Float32, {2 * 4 * 32});
    ir::Var rc0("rc0"), t("t"), rc1("rc1"), a("a"), b("b"), lane("lane");
    const ir::Expr rc = rc0 * rc1_extent + rc1, acc = (t * 4 + a * 2 + b) * 32 + lane;
    ir::Stmt s = ir::make_store(out, {acc},
                                ir::make_load(out, {acc}) + ir::make_load(in, {(rc * 4 + a * 2 + b) * 32 + lane}) *
                                                                ir::make_load(w, {rc * 4 + t * 2 + a}));
    s = ir::make_for(lane, 0, 32, ir::ForKind::Vectorized, s);
    s = ir::make_for(b, 0, 2, ir::ForKind::Unrolled, s);
    s = ir::make_for(a, 0, 2, ir::ForKind::Unrolled, s);
    s = ir::make_for(rc1, 0, rc1_extent, ir::ForKind::Serial, s);
    s = ir::make_for(t, 0, 2, ir::ForKind::Serial, s);
    s = ir::make_for(rc0, 0, 64 / rc1_extent, ir::ForKind::Serial, s);
    const std::vector<float> row =
        update_row(search::extract_features(lower::LoweredFunc{"k", {in, w, out}, s}, avx512));
    return std::pair{row[column("accumulator_in_memory")], row[column("unrolled_accumulators")]};
  };
  CHECK(in_memory(8).first == encoded(8));
  CHECK(in_memory(32).first == encoded(0));
  CHECK(in_memory(8).second == encoded(4));
  CHECK(in_memory(32).second == encoded(4));

  // 8 accumulators under k updates each, unrolled: interleaved up to 64
  // updates in all, beyond that not counted (1).
  auto unrolled_block = [&](int64_t k_extent) {
    ir::Buffer x("X", ir::DType::Float32, {k_extent * 16}), y("Y", ir::DType::Float32, {8 * 16});
    ir::Var r("r"), j("j"), k("k"), lane("lane");
    ir::Stmt s = ir::make_store(y, {j * 16 + lane}, ir::make_load(y, {j * 16 + lane}) + ir::make_load(x, {k * 16 + lane}));
    s = ir::make_for(lane, 0, 16, ir::ForKind::Vectorized, s);
    s = ir::make_for(k, 0, k_extent, ir::ForKind::Unrolled, s);
    s = ir::make_for(j, 0, 8, ir::ForKind::Unrolled, s);
    s = ir::make_for(r, 0, 4, ir::ForKind::Serial, s);
    return update_row(search::extract_features(lower::LoweredFunc{"k", {x, y}, s}, avx512))
        [column("unrolled_accumulators")];
  };
  CHECK(unrolled_block(8) == encoded(8));
  CHECK(unrolled_block(16) == encoded(1));

  // A parallel loop's body is a function of its own: the reduction loop of
  // 4 (unrolled) inside it updates one register.
  ir::Buffer in("In", ir::DType::Float32, {8 * 4 * 16}), out("Out", ir::DType::Float32, {8 * 16});
  ir::Var p("p"), k("k"), lane("lane");
  ir::Stmt s = ir::make_store(out, {p * 16 + lane},
                              ir::make_load(out, {p * 16 + lane}) + ir::make_load(in, {(p * 4 + k) * 16 + lane}));
  s = ir::make_for(lane, 0, 16, ir::ForKind::Vectorized, s);
  s = ir::make_for(k, 0, 4, ir::ForKind::Serial, s);
  s = ir::make_for(p, 0, 8, ir::ForKind::Parallel, s);
  CHECK(update_row(search::extract_features(lower::LoweredFunc{"k", {in, out}, s}, avx512))
            [column("accumulator_in_memory")] == encoded(0));
}

TEST_CASE("features: the loop LLVM's vectorizer takes where none is vectorized", "[cpu]") {
  target::Target avx512;
  avx512.vector_lanes = 16;
  auto auto_vector = [&](const std::vector<ir::Buffer>& args, const ir::Stmt& s) {
    return update_row(search::extract_features(lower::LoweredFunc{"k", args, s}, avx512))
        [column("auto_vector_extent")];
  };
  // A 7x7 global pool of a block of 16 channels: LLVM unrolls the 49 adds
  // whole and vectorizes the channels around them (light ResNet-50's pool
  // ran in 4 us so, against 34 with the window vectorized by gathers).
  {
    ir::Buffer in("In", ir::DType::Float32, {49 * 16}), sum("Sum", ir::DType::Float32, {16});
    ir::Var c("c"), r("r");
    ir::Stmt s = ir::make_store(sum, {c}, ir::make_load(sum, {c}) + ir::make_load(in, {r * 16 + c}));
    s = ir::make_for(r, 0, 49, ir::ForKind::Serial, s);
    s = ir::make_for(c, 0, 16, ir::ForKind::Serial, s);
    CHECK(auto_vector({in, sum}, s) == encoded(16));
  }
  // A matrix-vector product, out[n] += x[k] * W[n][k] with k = k0 * kin + k1.
  ir::Buffer x("X", ir::DType::Float32, {2048}), w("W", ir::DType::Float32, {128 * 2048}),
      out("Out", ir::DType::Float32, {128});
  ir::Var n("n"), k0("k0"), k1("k1");
  auto gemv = [&](int64_t kin, ir::ForKind k1_kind, bool n_inside) {
    const ir::Expr k = k0 * kin + k1;
    ir::Stmt s = ir::make_store(out, {n},
                                ir::make_load(out, {n}) + ir::make_load(x, {k}) * ir::make_load(w, {n * 2048 + k}));
    s = ir::make_for(k1, 0, kin, k1_kind, s);
    auto serial = [](const ir::Var& v, int64_t extent, ir::Stmt body) {
      return ir::make_for(v, 0, extent, ir::ForKind::Serial, std::move(body));
    };
    return n_inside ? serial(k0, 2048 / kin, serial(n, 128, s)) : serial(n, 128, serial(k0, 2048 / kin, s));
  };
  // Along the rows' reduction loop, kept innermost: a sum fast-math splits
  // into vectors.
  CHECK(auto_vector({x, w, out}, gemv(64, ir::ForKind::Serial, false)) == encoded(64));
  // Summed 48 at a time: fewer trips than LLVM's four vectors of partial
  // sums hold, left scalar (2026-12-07: 8x the time of 64 at a time).
  CHECK(auto_vector({x, w, out}, gemv(48, ir::ForKind::Serial, false)) == encoded(0));
  // The same with the row's inner 64 unrolled: one chain of adds.
  CHECK(auto_vector({x, w, out}, gemv(64, ir::ForKind::Unrolled, false)) == encoded(0));
  // Along the outputs, W's elements a row apart: gathers, left scalar.
  CHECK(auto_vector({x, w, out}, gemv(16, ir::ForKind::Unrolled, true)) == encoded(0));
}

TEST_CASE("features: a guard is tested once per iteration of the innermost loop that moves it", "[cpu]") {
  // C[p][i] += A[p][i] over r, p parallel, i vectorized; a guard on p inside
  // the vector loop is tested as often as one around r (LLVM hoists it; the
  // lanes share it), one on i for every element.
  ir::Buffer a("A", ir::DType::Float32, {3 * 16}), c("C", ir::DType::Float32, {3 * 16});
  ir::Var p("p"), r("r"), i("i");
  auto guard_ops = [&](const ir::Expr& cond, bool innermost) {
    ir::Stmt s = ir::make_store(c, {p * 16 + i}, ir::make_load(c, {p * 16 + i}) + ir::make_load(a, {p * 16 + i}));
    if (innermost) s = ir::make_if(cond, s);
    s = ir::make_for(r, 0, 64, ir::ForKind::Serial, ir::make_for(i, 0, 16, ir::ForKind::Vectorized, s));
    if (!innermost) s = ir::make_if(cond, s);
    s = ir::make_for(p, 0, 3, ir::ForKind::Parallel, s);
    return update_row(search::extract_features(lower::LoweredFunc{"k", {a, c}, s}))[column("guard_ops")];
  };
  CHECK(guard_ops(p < 2, true) == guard_ops(p < 2, false));
  CHECK(guard_ops(p < 2, true) == encoded(3));
  CHECK(guard_ops(p * 16 + i < 40, true) >= encoded(3 * 64 * 16));
}
