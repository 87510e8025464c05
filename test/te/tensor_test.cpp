#include <catch2/catch.hpp>

#include "ir/error.h"
#include "te/tensor.h"

using namespace tunectl;

TEST_CASE("compute finds its inputs from loads in first-read order", "[unit]") {
  te::Tensor a = te::placeholder("A", {4, 5});
  te::Tensor b = te::placeholder("B", {5});
  te::Tensor c = te::compute("C", {4, 5}, [&](const std::vector<ir::Var>& i) {
    return te::read(b, {i[1]}) + te::read(a, {i[0], i[1]}) * te::read(b, {i[1]});
  });
  REQUIRE(c->inputs.size() == 2);
  CHECK(c->inputs[0].get() == b.get());
  CHECK(c->inputs[1].get() == a.get());
  CHECK(c->axes.size() == 2);
  CHECK(c->axes[1].extent == 5);
  CHECK(c->reduce() == nullptr);
  CHECK(!c->is_placeholder());
}

TEST_CASE("reductions sit at the top of a compute body", "[unit]") {
  te::Tensor a = te::placeholder("A", {4, 6});
  ir::IterVar k = te::reduce_axis(6, "k");
  te::Tensor s = te::compute("S", {4}, [&](const std::vector<ir::Var>& i) { return te::sum(te::read(a, {i[0], k.var}), {k}); });
  REQUIRE(s->reduce() != nullptr);
  CHECK(s->reduce()->axes.size() == 1);
  CHECK(s->inputs.size() == 1);

  ir::IterVar k2 = te::reduce_axis(6, "k2");
  CHECK_THROWS_AS(te::compute("bad", {4},
                              [&](const std::vector<ir::Var>& i) {
                                return te::sum(te::read(a, {i[0], k2.var}), {k2}) + ir::Expr(1.0);
                              }),
                  UserError);
}

TEST_CASE("compute rejects malformed bodies", "[unit][error]") {
  te::Tensor a = te::placeholder("A", {4, 6});
  // Body type differs from the declared dtype.
  CHECK_THROWS_AS(te::compute("bad", {4, 6}, [&](const std::vector<ir::Var>& i) { return ir::Expr(i[0]); }), UserError);
  // Wrong index count through read().
  CHECK_THROWS_AS(te::read(a, {0}), UserError);
  // A load of a buffer that belongs to no tensor.
  ir::Buffer loose("loose", ir::DType::Float32, {4});
  CHECK_THROWS_AS(te::compute("bad", {4}, [&](const std::vector<ir::Var>& i) { return ir::make_load(loose, {i[0]}); }),
                  UserError);
  CHECK_THROWS_AS(te::reduce_axis(-1, "k"), UserError);
}
