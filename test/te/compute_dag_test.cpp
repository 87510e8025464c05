#include <catch2/catch.hpp>

#include "ops/conv2d.h"
#include "ops/elemwise.h"
#include "ops/matmul.h"
#include "ops/registry.h"
#include "te/compute_dag.h"

using namespace tunectl;

namespace {

te::ComputeDAG matmul_dag(int64_t m, int64_t n, int64_t k) {
  return te::ComputeDAG({ops::matmul(te::placeholder("A", {m, k}), te::placeholder("B", {k, n}))});
}

}  // namespace

TEST_CASE("ComputeDAG orders ops topologically with consumers", "[unit]") {
  te::Tensor a = te::placeholder("A", {8, 8});
  te::Tensor b = te::placeholder("B", {8, 8});
  te::Tensor mm = ops::matmul(a, b);
  te::Tensor r = ops::relu(mm);
  te::ComputeDAG dag({r});
  REQUIRE(dag.ops().size() == 4);
  CHECK(dag.ops()[0].get() == a.get());
  CHECK(dag.ops()[1].get() == b.get());
  CHECK(dag.ops()[2].get() == mm.get());
  CHECK(dag.ops()[3].get() == r.get());
  CHECK(dag.placeholders().size() == 2);
  CHECK(dag.index_of(mm) == 2);
  CHECK(dag.consumers(0) == std::vector<int>{2});
  CHECK(dag.consumers(2) == std::vector<int>{3});
  CHECK(dag.consumers(3).empty());
  CHECK(dag.is_output(3));
  CHECK_FALSE(dag.is_output(2));
}

TEST_CASE("flop counts", "[unit]") {
  CHECK(matmul_dag(64, 32, 16).flop_count() == 2.0 * 64 * 32 * 16);
  CHECK(matmul_dag(7, 13, 15).flop_count() == 2.0 * 7 * 13 * 15);
  // conv 1x4x9x9, 8 filters 3x3, no padding: 2 * N*K*OH*OW * C*R*S; bias add
  // and relu add one flop each per output element.
  te::ComputeDAG conv = ops::make_op_dag("conv2d", {{"N", 1}, {"C", 4}, {"H", 9}, {"W", 9}, {"K", 8}, {"pad", 0},
                                                    {"bias", true}, {"relu", true}});
  double out = 1 * 8 * 7 * 7;
  CHECK(conv.flop_count() == 2.0 * out * 4 * 9 + out + out);
  // Padding is a select with integer index math: free.
  te::ComputeDAG padded = ops::make_op_dag("conv2d", {{"N", 1}, {"C", 4}, {"H", 9}, {"W", 9}, {"K", 8}, {"pad", 1}});
  CHECK(padded.flop_count() == 2.0 * 8 * 9 * 9 * 4 * 9);
}

TEST_CASE("workload keys are stable across builds and distinct across shapes", "[unit]") {
  std::string k1 = matmul_dag(64, 64, 64).workload_key();
  std::string k2 = matmul_dag(64, 64, 64).workload_key();
  CHECK(k1.size() == 16);
  CHECK(k1.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(k1 == k2);
  CHECK(matmul_dag(64, 64, 32).workload_key() != k1);
  CHECK(matmul_dag(32, 64, 64).workload_key() != k1);

  nlohmann::json p{{"C", 8}, {"H", 14}, {"W", 14}, {"K", 8}};
  std::string c1 = ops::make_op_dag("conv2d", p).workload_key();
  CHECK(ops::make_op_dag("conv2d", p).workload_key() == c1);
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"stride", 2}, {"pad", 0}, {"dilation", 2}, {"groups", 2}, {"bias", true}, {"relu", true}}) {
    nlohmann::json q = p;
    q[key] = value;
    INFO(key);
    CHECK(ops::make_op_dag("conv2d", q).workload_key() != c1);
  }
  CHECK(ops::make_op_dag("leaky_relu", {{"shape", {4, 4}}, {"alpha", 0.1}}).workload_key() !=
        ops::make_op_dag("leaky_relu", {{"shape", {4, 4}}, {"alpha", 0.2}}).workload_key());
}

TEST_CASE("canonical text names variables by position", "[unit]") {
  std::string text = matmul_dag(4, 5, 6).canonical_text();
  INFO(text);
  CHECK(text.find("placeholder A[float32 4x6]") != std::string::npos);
  CHECK(text.find("placeholder B[float32 6x5]") != std::string::npos);
  CHECK(text.find("ax0") != std::string::npos);
  CHECK(text.find("ax1") != std::string::npos);
  CHECK(text.find("r0") != std::string::npos);
  CHECK(text.find("rk") == std::string::npos);
  CHECK(text == matmul_dag(4, 5, 6).canonical_text());
}
