#include <catch2/catch.hpp>

#include <pthread.h>

#include <memory>
#include <string>
#include <vector>

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

TEST_CASE("a chain of 20,000 tensors is released on a small stack", "[unit]") {
  // Each tensor reads its predecessor and one shared weight: the teardown must
  // release each exactly once (ASan checks) and all of them (the weak refs).
  struct Chain {
    te::Tensor last;
    std::weak_ptr<const te::TensorNode> first, weight;
  } chain;
  {
    te::Tensor w = te::placeholder("W", {4});
    te::Tensor t = te::placeholder("X", {4});
    chain.first = t;
    chain.weight = w;
    for (int i = 0; i < 20'000; ++i)
      t = te::compute("T" + std::to_string(i), {4},
                      [&](const std::vector<ir::Var>& v) { return te::read(t, {v[0]}) * te::read(w, {v[0]}); });
    chain.last = std::move(t);
  }
  // 512 KiB: a teardown that recursed per tensor needed megabytes.
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, 512 << 10) == 0);
  pthread_t thread;
  auto release = [](void* c) -> void* {
    static_cast<Chain*>(c)->last.reset();
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, release, &chain) == 0);
  REQUIRE(pthread_join(thread, nullptr) == 0);
  pthread_attr_destroy(&attr);
  CHECK(chain.first.expired());
  CHECK(chain.weight.expired());
}
