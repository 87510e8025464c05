// The unrolled recurrent layers (graph/convert_rnn.cpp) on what the ONNX
// node tests leave out: a bidirectional layer is a forward and a reverse
// layer side by side, a reverse layer's Y_h is its state after the first
// step, and sequence_lens stops an entry's state at its length and zeroes
// its Y beyond it.
#include <catch2/catch.hpp>

#include <random>

#include "convert_test_util.h"

using namespace tunectl;
using namespace tunectl::graph;
using namespace tunectl::graph::testing;

namespace {

constexpr int64_t kSeq = 4, kBatch = 2, kInput = 3, kHidden = 5;

runtime::NDArray random(std::vector<int64_t> shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  runtime::NDArray a(ir::DType::Float32, std::move(shape));
  a.fill_random(rng, -0.8, 0.8);
  return a;
}

// Direction d of a [dirs, ...] array as a [1, ...] one.
runtime::NDArray direction(const runtime::NDArray& a, int64_t d) {
  std::vector<int64_t> shape = a.shape();
  const int64_t per = a.num_elements() / shape[0];
  shape[0] = 1;
  runtime::NDArray out(a.dtype(), shape);
  for (int64_t i = 0; i < per; ++i) out.set(i, a.get(d * per + i));
  return out;
}

// Y[t, d, b, j] of a [seq, dirs, batch, hidden] array.
double y_at(const runtime::NDArray& y, int64_t t, int64_t d, int64_t b, int64_t j) {
  const auto& s = y.shape();
  return y.get(((t * s[1] + d) * s[2] + b) * s[3] + j);
}

}  // namespace

TEST_CASE("a bidirectional GRU is a forward and a reverse GRU side by side", "[unit][graph][convert]") {
  const runtime::NDArray x = random({kSeq, kBatch, kInput}, 1), w = random({2, 3 * kHidden, kInput}, 2),
                         r = random({2, 3 * kHidden, kHidden}, 3), b = random({2, 6 * kHidden}, 4);
  GraphBuilder g(14);
  g.input("x", x);
  g.constant("w", w);
  g.constant("r", r);
  g.constant("b", b);
  g.node("GRU", {"x", "w", "r", "b"}, {"y", "h"}, {{"hidden_size", kHidden}, {"direction", std::string("bidirectional")}});
  for (int64_t d = 0; d < 2; ++d) {
    const std::string s = std::to_string(d);
    g.constant("w" + s, direction(w, d));
    g.constant("r" + s, direction(r, d));
    g.constant("b" + s, direction(b, d));
    g.node("GRU", {"x", "w" + s, "r" + s, "b" + s}, {"y" + s, "h" + s},
           {{"hidden_size", kHidden}, {"direction", std::string(d == 0 ? "forward" : "reverse")}});
  }
  const runtime::NDArray y = g.eval("y"), h = g.eval("h");
  for (int64_t d = 0; d < 2; ++d) {
    const runtime::NDArray yd = g.eval("y" + std::to_string(d)), hd = g.eval("h" + std::to_string(d));
    for (int64_t bi = 0; bi < kBatch; ++bi)
      for (int64_t j = 0; j < kHidden; ++j) {
        for (int64_t t = 0; t < kSeq; ++t) CHECK(y_at(y, t, d, bi, j) == Approx(y_at(yd, t, 0, bi, j)).margin(1e-6));
        const double last = h.get((d * kBatch + bi) * kHidden + j);
        CHECK(last == Approx(hd.get(bi * kHidden + j)).margin(1e-6));
        // Forward ends after the last step, reverse after the first.
        CHECK(last == Approx(y_at(y, d == 0 ? kSeq - 1 : 0, d, bi, j)).margin(1e-6));
      }
  }
}

TEST_CASE("sequence_lens stops an LSTM entry at its length and zeroes its Y beyond", "[unit][graph][convert]") {
  GraphBuilder g(14);
  g.input("x", random({kSeq, kBatch, kInput}, 5));
  g.constant("w", random({1, 4 * kHidden, kInput}, 6));
  g.constant("r", random({1, 4 * kHidden, kHidden}, 7));
  runtime::NDArray lens(ir::DType::Int32, {kBatch});
  lens.set(0, kSeq);
  lens.set(1, 2);
  g.constant("lens", lens);
  g.node("LSTM", {"x", "w", "r", "", "lens"}, {"y", "h", "c"}, {{"hidden_size", kHidden}});
  const runtime::NDArray y = g.eval("y"), h = g.eval("h");
  REQUIRE(g.tensor("c")->shape() == std::vector<int64_t>{1, kBatch, kHidden});
  for (int64_t j = 0; j < kHidden; ++j) {
    CHECK(h.get(j) == Approx(y_at(y, kSeq - 1, 0, 0, j)).margin(1e-6));
    CHECK(h.get(kHidden + j) == Approx(y_at(y, 1, 0, 1, j)).margin(1e-6));
    CHECK(y_at(y, 1, 0, 1, j) != 0);
    for (int64_t t = 2; t < kSeq; ++t) CHECK(y_at(y, t, 0, 1, j) == 0);
  }
}
