// The interpreter is the oracle of every lowering test, so its own checks
// are tested: out-of-range accesses and reads of unwritten scratch memory.
#include <catch2/catch.hpp>

#include <cmath>

#include "ir/error.h"
#include "lower/interpreter.h"

namespace tunectl::lower::test {

namespace {

using namespace ir;

LoweredFunc copy_func(int64_t extent, int64_t offset) {
  Buffer in("in", DType::Float32, {4}), out("out", DType::Float32, {4});
  Var i("i");
  Stmt body = make_for(i, make_int(0), make_int(extent), ForKind::Serial,
                       make_store(out, {i}, make_load(in, {i + make_int(offset)}) * 2.0));
  return LoweredFunc{"copy", {in, out}, body};
}

}  // namespace

TEST_CASE("interpreter runs loops and checks bounds", "[cpu]") {
  runtime::NDArray in(DType::Float32, {4}), out(DType::Float32, {4});
  for (int64_t k = 0; k < 4; ++k) in.set(k, static_cast<double>(k) + 0.5);
  interpret(copy_func(4, 0), {&in, &out});
  for (int64_t k = 0; k < 4; ++k) CHECK(out.get(k) == 2 * (static_cast<double>(k) + 0.5));
  CHECK_THROWS_AS(interpret(copy_func(4, 1), {&in, &out}), InternalError);
  CHECK_THROWS_AS(interpret(copy_func(5, 0), {&in, &out}), InternalError);
}

TEST_CASE("interpreter scratch memory starts as NaN", "[cpu]") {
  Buffer out("out", DType::Float32, {2}), tmp("tmp", DType::Float32, {2}, MemScope::Local);
  Var i("i");
  Stmt body = make_allocate(tmp, make_for(i, make_int(0), make_int(2), ForKind::Serial,
                                          make_store(out, {i}, make_load(tmp, {i}))));
  runtime::NDArray a(DType::Float32, {2});
  interpret(LoweredFunc{"f", {out}, body}, {&a});
  CHECK(std::isnan(a.get(0)));
  CHECK(std::isnan(a.get(1)));
}

}  // namespace tunectl::lower::test
