// Vectorized loops: stride-1 vector loads/stores, gathers, scatters, masks,
// chunking of wide loops and the serial fallback.
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "ir/error.h"
#include "kernel_fixture.h"

using namespace tunectl;
using ir::Buffer;
using ir::DType;
using ir::Expr;
using ir::ForKind;
using ir::Var;
using test::AlignedArray;

namespace {

Expr ld(const Buffer& b, Expr i) { return ir::make_load(b, {std::move(i)}); }

}  // namespace

TEST_CASE("vectorized add for widths below, at and above one chunk", "[cpu]") {
  for (int64_t n : {1, 7, 16, 37, 64}) {
    Buffer a("A", DType::Float32, {n}), b("B", DType::Float32, {n}), c("C", DType::Float32, {n});
    Var i("i");
    auto body = ir::make_for(i, 0, n, ForKind::Vectorized, ir::make_store(c, {i}, ld(a, i) + ld(b, i)));
    auto va = test::random_floats(n, -1, 1, 1), vb = test::random_floats(n, -1, 1, 2);
    AlignedArray<float> vc(n, -7.0f);
    test::compile_and_run({"vadd", {a, b, c}, body}, {va.data(), vb.data(), vc.data()});
    for (int64_t k = 0; k < n; ++k) REQUIRE(vc[k] == va[k] + vb[k]);
  }
}

// Floats that end exactly where an inaccessible page begins: a kernel that
// reads one element past them faults.
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t n) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    data_pages_ = (n * sizeof(float) + page_ - 1) / page_;
    base_ = mmap(nullptr, (data_pages_ + 1) * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(base_ != MAP_FAILED);
    char* guard = static_cast<char*>(base_) + data_pages_ * page_;
    REQUIRE(mprotect(guard, page_, PROT_NONE) == 0);
    data_ = reinterpret_cast<float*>(guard) - n;
  }
  ~GuardedFloats() { munmap(base_, (data_pages_ + 1) * page_); }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  float* data() { return data_; }

 private:
  size_t page_ = 0, data_pages_ = 0;
  void* base_ = nullptr;
  float* data_ = nullptr;
};

TEST_CASE("vectorized loads with a lane stride of 2 to 5 read no element past the last lane's", "[cpu]") {
  // Strides up to 4 load contiguous vectors and shuffle, the last masked; 5
  // gathers. 48 lanes are whole chunks; 45 end in a masked tail.
  for (int64_t stride : {2, 3, 4, 5}) {
    for (int64_t n : {48, 45}) {
      INFO("stride " << stride << ", " << n << " lanes");
      const int64_t size = (n - 1) * stride + 2;  // A[i * stride + 1] for i < n ends the buffer
      Buffer a("A", DType::Float32, {size}), c("C", DType::Float32, {n});
      Var i("i");
      auto body = ir::make_for(i, 0, n, ForKind::Vectorized,
                               ir::make_store(c, {i}, ld(a, i * stride + 1) * 2.0));
      GuardedFloats va(static_cast<size_t>(size));
      for (int64_t k = 0; k < size; ++k) va.data()[k] = static_cast<float>(k) * 0.5f - 3;
      AlignedArray<float> vc(n, -7.0f);
      test::compile_and_run({"strided", {a, c}, body}, {va.data(), vc.data()});
      for (int64_t k = 0; k < n; ++k) REQUIRE(vc[k] == va.data()[k * stride + 1] * 2);
    }
  }
}

TEST_CASE("vectorized inner loop of a 2-D nest with multi-dimensional indices", "[cpu]") {
  const int64_t m = 5, n = 24;
  Buffer a("A", DType::Float32, {m, n}), c("C", DType::Float32, {m, n});
  Var i("i"), j("j");
  auto store = ir::make_store(c, {i, j}, ir::make_load(a, {i, j}) * 2.0 + ir::make_cast(DType::Float32, i));
  auto body = ir::make_for(i, 0, m, ForKind::Serial, ir::make_for(j, 0, n, ForKind::Vectorized, store));
  auto va = test::random_floats(m * n, -1, 1, 3);
  AlignedArray<float> vc(m * n);
  test::compile_and_run({"nest", {a, c}, body}, {va.data(), vc.data()});
  for (int64_t r = 0; r < m; ++r)
    for (int64_t k = 0; k < n; ++k) REQUIRE(vc[r * n + k] == va[r * n + k] * 2.0f + static_cast<float>(r));
}

TEST_CASE("vectorized gathers and scatters", "[cpu]") {
  const int64_t n = 21;
  Buffer a("A", DType::Float32, {3 * n}), b("B", DType::Float32, {n}), c("C", DType::Float32, {n}),
      d("D", DType::Float32, {2 * n});
  Var i("i");
  // Stride 3 load, a floormod (non-affine) load, an invariant load, a stride 2 store.
  auto body = ir::make_for(i, 0, n, ForKind::Vectorized,
                           ir::make_seq({ir::make_store(c, {i}, ld(a, i * 3) + ld(b, (i * 5 + 2) % n) + ld(b, 4)),
                                         ir::make_store(d, {i * 2 + 1}, ld(b, n - 1 - i))}));
  auto va = test::random_floats(3 * n, -1, 1, 4), vb = test::random_floats(n, -1, 1, 5);
  AlignedArray<float> vc(n), vd(2 * n, 9.0f);
  test::compile_and_run({"gather", {a, b, c, d}, body}, {va.data(), vb.data(), vc.data(), vd.data()});
  for (int64_t k = 0; k < n; ++k) {
    REQUIRE(vc[k] == va[3 * k] + vb[(5 * k + 2) % n] + vb[4]);
    REQUIRE(vd[2 * k + 1] == vb[n - 1 - k]);
    REQUIRE(vd[2 * k] == 9.0f);
  }
}

TEST_CASE("vectorized conditionals mask out-of-bounds lanes", "[cpu]") {
  const int64_t n = 16;
  Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n}), d("D", DType::Float32, {n});
  Var i("i");
  // Padding: A[i - 2] is only read where i >= 2 (lanes 0 and 1 would read A[-2], A[-1]).
  auto padded = ir::make_select(i >= 2, ld(a, i - 2), Expr(0.0));
  auto guarded = ir::make_if(i < 5, ir::make_store(d, {i}, ld(a, i + 11)), ir::make_store(d, {i}, Expr(-1.0)));
  auto body = ir::make_for(i, 0, n, ForKind::Vectorized, ir::make_seq({ir::make_store(c, {i}, padded), guarded}));
  auto va = test::random_floats(n, 1, 2, 6);
  AlignedArray<float> vc(n), vd(n);
  test::compile_and_run({"masked", {a, c, d}, body}, {va.data(), vc.data(), vd.data()});
  for (int64_t k = 0; k < n; ++k) {
    REQUIRE(vc[k] == (k >= 2 ? va[k - 2] : 0.0f));
    REQUIRE(vd[k] == (k < 5 ? va[k + 11] : -1.0f));
  }
}

TEST_CASE("vectorized loop with a lane-invariant store falls back to a serial loop", "[cpu]") {
  const int64_t n = 40;
  Buffer a("A", DType::Float32, {n}), s("S", DType::Float32, {1});
  Var i("i");
  auto body = ir::make_seq({ir::make_store(s, {0}, Expr(0.0)),
                            ir::make_for(i, 0, n, ForKind::Vectorized,
                                         ir::make_store(s, {0}, ld(s, 0) + ld(a, i) * ld(a, i)))});
  auto va = test::random_floats(n, -1, 1, 7);
  AlignedArray<float> vs(1);
  test::compile_and_run({"fallback", {a, s}, body}, {va.data(), vs.data()});
  double expected = 0;
  for (int64_t k = 0; k < n; ++k) expected += double(va[k]) * va[k];
  // Reassociation is allowed (fast-math reassoc), so compare with fp32 tolerance.
  REQUIRE(vs[0] == Approx(expected).epsilon(1e-5));
}

TEST_CASE("emit_llvm_ir shows 16-lane vectors for a vectorized add", "[cpu]") {
  const int64_t n = 64;
  Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
  Var i("i");
  auto body = ir::make_for(i, 0, n, ForKind::Vectorized, ir::make_store(c, {i}, ld(a, i) + 1.0));
  std::string text = codegen::emit_llvm_ir({"vadd_ir", {a, c}, body}, test::host());
  CHECK(text.find("<16 x float>") != std::string::npos);
  CHECK(text.find("define void @vadd_ir") != std::string::npos);
}
