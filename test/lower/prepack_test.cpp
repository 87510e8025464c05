// Prepacked constants (schedule::PrepackStep): the kernel takes the packed
// layout lower/prepack.h describes, its packing function fills it, and the
// pair computes the reference; regions that are not tile-aligned and
// constants read unpacked elsewhere are refused with a clear message.
#include <catch2/catch.hpp>

#include "ir/error.h"
#include "lower/lower.h"
#include "lower_check.h"
#include "te/tensor.h"

namespace tunectl::lower::test {

namespace {

using namespace schedule;
using Catch::Matchers::Contains;

// C[i, j] = sum_k A[i, k] * W[k, j] with W a constant; a second output
// D[i, j] = W[i, j] * 2 when also_read.
std::shared_ptr<const te::ComputeDAG> dense_dag(bool also_read = false) {
  auto a = te::placeholder("A", {6, 12});
  auto w = te::placeholder("W", {12, 20}, ir::DType::Float32, true);
  ir::IterVar k = te::reduce_axis(12, "k");
  auto c = te::compute("C", {6, 20}, [&](const std::vector<ir::Var>& i) {
    return te::sum(te::read(a, {i[0], k.var}) * te::read(w, {k.var, i[1]}), {k});
  });
  std::vector<te::Tensor> outs{c};
  if (also_read)
    outs.push_back(te::compute("D", {12, 20}, [&](const std::vector<ir::Var>& i) {
      return te::read(w, {i[0], i[1]}) * ir::make_float(2.0f);
    }));
  return std::make_shared<const te::ComputeDAG>(outs);
}

// W copied (cache_read) at C's outer j loop (j split by 8, which does not
// divide 20) and prepacked. Stages: A, W, W.local, C.
State packed_dense() {
  State s = State::initial(dense_dag());
  s.apply(SplitStep{2, 1, 20, {8}});       // i j.0 j.1 k
  s.apply(ReorderStep{2, {1, 0, 2, 3}});  // j.0 i j.1 k
  s.apply(CacheReadStep{1, "local", {2}});
  s.apply(ComputeAtStep{2, 3, 0});
  s.apply(PrepackStep{2});
  return s;
}

}  // namespace

TEST_CASE("a prepacked constant is a packed argument with a packing function", "[unit][prepack]") {
  State s = packed_dense();
  LoweredFunc f = lower(s, "dense");
  REQUIRE(f.args.size() == 3);
  // Tiles [12/12, ceil(20/8)] then the region [12, 8].
  CHECK(f.args[1]->shape == std::vector<int64_t>{1, 3, 12, 8});
  CHECK(f.args[1]->name == "W_packed");
  REQUIRE(f.packings.size() == 1);
  CHECK(f.packings[0].arg == 1);
  CHECK(f.packings[0].func.name == "dense_pack1");
  CHECK(f.packings[0].func.args[0]->shape == std::vector<int64_t>{12, 20});
  CHECK(f.packings[0].func.args[1].same_as(f.args[1]));
  CHECK(check_against_reference(s, 3) == "");
  // The passes rewrote the packing function too: its accesses are flat and
  // simplified.
  int accesses = 0;
  lower(s, "dense", target::Target{}, [&](std::string_view step, const LoweredFunc& g) {
    if (step != "simplify_loops") return;
    const std::string text = to_string(g.packings.at(0).func);
    INFO(text);
    CHECK(text.find("W_packed[t1 * 96 + x0 * 8 + x1] = W[x0 * 20 + t1 * 8 + x1]") != std::string::npos);
    ++accesses;
  });
  CHECK(accesses == 1);
}

TEST_CASE("prepacking at a fused parallel loop and at the root computes the reference", "[unit][prepack]") {
  State fused = packed_dense();
  fused.apply(FuseStep{3, {0, 1}});
  fused.apply(AnnotationStep{3, 0, "parallel"});
  CHECK(check_against_reference(fused, 4) == "");

  State root = State::initial(dense_dag());
  root.apply(CacheReadStep{1, "local", {2}});
  root.apply(PrepackStep{2});
  CHECK(lower(root, "dense").args[1]->shape == std::vector<int64_t>{1, 1, 12, 20});
  CHECK(check_against_reference(root, 5) == "");
}

TEST_CASE("prepacking refuses what it cannot lay out", "[unit][prepack][error]") {
  // Another stage still reads W itself.
  State both = State::initial(dense_dag(true));
  both.apply(CacheReadStep{1, "local", {2}});
  both.apply(PrepackStep{2});
  CHECK_THROWS_WITH(lower(both, "dense"), Contains("cannot prepack W") && Contains("also reads it unpacked"));

  // A window read (P[i] + P[i + 1]) gives regions that overlap, so they are
  // not tile-aligned.
  auto p = te::placeholder("P", {17}, ir::DType::Float32, true);
  auto out = te::compute("O", {16}, [&](const std::vector<ir::Var>& i) {
    return te::read(p, {i[0]}) + te::read(p, {i[0] + ir::make_int(1)});
  });
  State window = State::initial(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{out}));
  window.apply(SplitStep{1, 0, 16, {4}});
  window.apply(CacheReadStep{0, "local", {1}});
  window.apply(ComputeAtStep{1, 2, 0});
  window.apply(PrepackStep{1});
  CHECK_THROWS_WITH(lower(window, "window"), Contains("not a multiple of its extent 5"));
}

}  // namespace tunectl::lower::test
