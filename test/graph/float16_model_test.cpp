// A float16 model end to end: Conv (float16 weights) -> Relu -> Add with
// float16 input and output, imported, partitioned and run with compiled
// kernels. The reference computes each operator in double on the float16
// values and rounds its result to float16, as ONNX's reference does; the
// executor computes in float32 and stores float16, so they agree to a
// float16 rounding step.
#include <catch2/catch.hpp>

#include <random>

#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "import_test_util.h"

using namespace tunectl;
using namespace tunectl::graph;

namespace {

constexpr int64_t kC = 3, kK = 16, kH = 9, kW = 11;

runtime::NDArray random_half(std::vector<int64_t> shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  runtime::NDArray a(ir::DType::Float16, std::move(shape));
  a.fill_random(rng, -1, 1);
  return a;
}

onnx::ModelProto conv_relu_add_model(const runtime::NDArray& weight) {
  onnx::ModelProto m = test::make_model({1, kC, kH, kW}, {1, kK, kH, kW});
  auto* g = m.mutable_graph();
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  test::set_tensor_type(g->add_input(), "r", {1, kK, kH, kW}, onnx::TensorProto::FLOAT16);
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT16);
  for (int64_t d : weight.shape()) w->add_dims(d);
  w->set_raw_data(weight.raw(), weight.num_bytes());
  auto* conv = test::add_node(m, "Conv", {"x", "w"}, {"c"}, "conv");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int k = 0; k < 4; ++k) pads->add_ints(1);
  test::add_node(m, "Relu", {"c"}, {"a"}, "relu");
  test::add_node(m, "Add", {"a", "r"}, {"y"}, "add");
  return m;
}

double half(double v) { return ir::round_to_float(ir::DType::Float16, v); }

}  // namespace

TEST_CASE("float16 model: stored in float16, computed in float32, rounded per operator", "[cpu]") {
  test::ScratchDir dir("float16_model");
  const runtime::NDArray x = random_half({1, kC, kH, kW}, 1), w = random_half({kK, kC, 3, 3}, 2),
                         r = random_half({1, kK, kH, kW}, 3);
  test::save_model(conv_relu_add_model(w), dir.file("m.onnx"));
  Graph g = simplify_graph(import_onnx(dir.file("m.onnx")));
  CHECK(g.info("x").dtype == ir::DType::Float16);
  Executor executor(g, partition(g));
  const runtime::NDArray y = executor.run({{"x", x}, {"r", r}}).at("y");
  REQUIRE(y.dtype() == ir::DType::Float16);
  REQUIRE(y.num_bytes() == 2 * kK * kH * kW);

  runtime::NDArray expected(ir::DType::Float16, {1, kK, kH, kW});
  for (int64_t k = 0; k < kK; ++k)
    for (int64_t i = 0; i < kH; ++i)
      for (int64_t j = 0; j < kW; ++j) {
        double sum = 0;
        for (int64_t c = 0; c < kC; ++c)
          for (int64_t u = 0; u < 3; ++u)
            for (int64_t v = 0; v < 3; ++v) {
              const int64_t yi = i + u - 1, xj = j + v - 1;
              if (yi < 0 || yi >= kH || xj < 0 || xj >= kW) continue;
              sum += x.get((c * kH + yi) * kW + xj) * w.get(((k * kC + c) * 3 + u) * 3 + v);
            }
        const int64_t at = (k * kH + i) * kW + j;
        expected.set(at, half(std::max(half(sum), 0.0) + r.get(at)));
      }
  // One float16 step (2^-10 relative) for the float32 sum's other order.
  const runtime::CompareResult cmp = runtime::all_close(y, expected, 2e-3, 2e-3);
  INFO(cmp.message);
  CHECK(cmp.ok);
}
