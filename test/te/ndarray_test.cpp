#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/error.h"
#include "runtime/ndarray.h"

using namespace tunectl;
using runtime::NDArray;

TEST_CASE("NDArray is aligned, zero-filled and typed", "[unit]") {
  for (ir::DType t : {ir::DType::Bool, ir::DType::Int32, ir::DType::Int64, ir::DType::Float32, ir::DType::Float64}) {
    NDArray a(t, {3, 5});
    CHECK(reinterpret_cast<uintptr_t>(a.raw()) % 64 == 0);
    CHECK(a.num_elements() == 15);
    CHECK(a.num_bytes() == static_cast<size_t>(15 * ir::dtype_bytes(t)));
    for (int64_t i = 0; i < 15; ++i) CHECK(a.get(i) == 0.0);
    a.set(7, 3.0);
    CHECK(a.get(7) == (t == ir::DType::Bool ? 1.0 : 3.0));
  }
  NDArray f(ir::DType::Float32, {2});
  f.set(1, 0.1);
  CHECK(f.data<float>()[1] == 0.1f);
  CHECK(NDArray(ir::DType::Float32, {2, 0}).num_elements() == 0);  // empty tensors exist
  CHECK_THROWS_AS(NDArray(ir::DType::Float32, {2, -1}), UserError);
}

TEST_CASE("NDArray keeps integers exactly, the extremes of int64 included", "[unit]") {
  NDArray a(ir::DType::Int64, {3});
  a.set_int(0, std::numeric_limits<int64_t>::max());
  a.set_int(1, std::numeric_limits<int64_t>::min());
  a.set_int(2, (int64_t{1} << 53) + 1);  // no double holds it
  CHECK(a.get_int(0) == std::numeric_limits<int64_t>::max());
  CHECK(a.get_int(1) == std::numeric_limits<int64_t>::min());
  CHECK(a.get_int(2) == (int64_t{1} << 53) + 1);
  NDArray b(ir::DType::Bool, {1});
  b.set_int(0, 5);
  CHECK(b.get_int(0) == 1);
  NDArray f(ir::DType::Float32, {1});
  CHECK_THROWS_AS(f.get_int(0), InternalError);
}

TEST_CASE("fill_random stays in range and depends on the seed", "[unit]") {
  NDArray a(ir::DType::Float32, {1000}), b(ir::DType::Float32, {1000});
  std::mt19937_64 r1(7), r2(8);
  a.fill_random(r1, -2.0, 3.0);
  b.fill_random(r2, -2.0, 3.0);
  bool differ = false;
  for (int64_t i = 0; i < 1000; ++i) {
    CHECK(a.get(i) >= -2.0);
    CHECK(a.get(i) < 3.0);
    differ = differ || a.get(i) != b.get(i);
  }
  CHECK(differ);
  NDArray n(ir::DType::Int32, {100});
  n.fill_random(r1, 0, 10);
  for (int64_t i = 0; i < 100; ++i) CHECK(n.get(i) == std::floor(n.get(i)));
}

TEST_CASE("all_close reports the first mismatch and the count", "[unit]") {
  NDArray a(ir::DType::Float32, {4}), b(ir::DType::Float32, {4});
  for (int i = 0; i < 4; ++i) {
    a.set(i, i);
    b.set(i, i);
  }
  CHECK(runtime::all_close(a, b).ok);
  a.set(1, 5.0);
  a.set(3, 9.0);
  auto r = runtime::all_close(a, b);
  CHECK_FALSE(r.ok);
  CHECK(r.message.find("index 1") != std::string::npos);
  CHECK(r.message.find("actual 5") != std::string::npos);
  CHECK(r.message.find("expected 1") != std::string::npos);
  CHECK(r.message.find("2 of 4") != std::string::npos);

  // Tolerances.
  a.set(1, 1.0 + 1e-7);
  a.set(3, 3.0);
  CHECK(runtime::all_close(a, b).ok);
  // NaN matches only NaN.
  double nan = std::numeric_limits<double>::quiet_NaN();
  a.set(0, nan);
  CHECK_FALSE(runtime::all_close(a, b).ok);
  b.set(0, nan);
  CHECK(runtime::all_close(a, b).ok);
  CHECK_FALSE(runtime::all_close(a, NDArray(ir::DType::Float32, {2, 2})).ok);
}
