#include "baseline/cublas_sgemm.h"

#include "ir/error.h"
#include "runtime/cuda_kernel.h"
#include "runtime/cuda_library.h"

namespace tunectl::baseline {

namespace {

// The part of cublas_api.h used here (v2 API, cuBLAS 13).
using Status = int;
constexpr int kOpN = 0;             // CUBLAS_OP_N
constexpr int kPedanticMath = 2;    // CUBLAS_PEDANTIC_MATH

struct Cublas {
  void* lib = nullptr;
  std::string why;
  Status (*Create)(void**) = nullptr;
  Status (*Destroy)(void*) = nullptr;
  Status (*SetMathMode)(void*, int) = nullptr;
  Status (*Sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*,
                  float*, int) = nullptr;
};

const Cublas& cublas() {
  static const Cublas c = [] {
    Cublas c;
    c.lib = runtime::open_cuda_library("libcublas.so.13", c.why);
    if (!c.lib) return c;
    auto bind = [&](auto& f, const char* name) { runtime::bind_symbol(c.lib, f, name, "libcublas.so.13", c.why); };
    bind(c.Create, "cublasCreate_v2");
    bind(c.Destroy, "cublasDestroy_v2");
    bind(c.SetMathMode, "cublasSetMathMode");
    bind(c.Sgemm, "cublasSgemm_v2");
    if (!c.why.empty()) c.lib = nullptr;
    return c;
  }();
  return c;
}

void check(Status s, const char* what) { user_check(s == 0, "cuBLAS ", what, " failed (status ", s, ")"); }

}  // namespace

bool cublas_available(std::string& why) {
  why = cublas().why;
  return cublas().lib != nullptr;
}

CublasSgemm::CublasSgemm(int64_t m, int64_t n, int64_t k) : m_(m), n_(n), k_(k) {
  const Cublas& c = cublas();
  user_check(c.lib != nullptr, "the cuBLAS baseline: ", c.why);
  const runtime::CudaDriver& d = runtime::CudaDriver::get();
  d.check(d.MemAlloc(&a_, sizeof(float) * m * k), "cuMemAlloc");
  d.check(d.MemAlloc(&b_, sizeof(float) * k * n), "cuMemAlloc");
  d.check(d.MemAlloc(&c_, sizeof(float) * m * n), "cuMemAlloc");
  check(c.Create(&handle_), "cublasCreate");
  check(c.SetMathMode(handle_, kPedanticMath), "cublasSetMathMode");
}

CublasSgemm::~CublasSgemm() {
  if (handle_) cublas().Destroy(handle_);
  const runtime::CudaDriver& d = runtime::CudaDriver::get();
  for (runtime::CUdeviceptr p : {a_, b_, c_})
    if (p) d.MemFree(p);
}

// cuBLAS is column-major: row-major C = A x B is column-major C^T = B^T x A^T,
// i.e. B (n x k, leading dimension n) times A (k x m, leading dimension k).
void CublasSgemm::multiply() const {
  const float alpha = 1, beta = 0;
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  check(cublas().Sgemm(handle_, kOpN, kOpN, i(n_), i(m_), i(k_), &alpha, reinterpret_cast<const float*>(b_), i(n_),
                       reinterpret_cast<const float*>(a_), i(k_), &beta, reinterpret_cast<float*>(c_), i(n_)),
        "cublasSgemm");
}

void CublasSgemm::run(const float* a, const float* b, float* c) const {
  const runtime::CudaDriver& d = runtime::CudaDriver::get();
  d.check(d.MemcpyHtoD(a_, a, sizeof(float) * m_ * k_), "cuMemcpyHtoD");
  d.check(d.MemcpyHtoD(b_, b, sizeof(float) * k_ * n_), "cuMemcpyHtoD");
  multiply();
  d.check(d.CtxSynchronize(), "cublasSgemm");
  d.check(d.MemcpyDtoH(c, c_, sizeof(float) * m_ * n_), "cuMemcpyDtoH");
}

runtime::Timing CublasSgemm::time(const runtime::TimingOptions& options) const {
  return runtime::time_on_device([&] { multiply(); }, options);
}

}  // namespace tunectl::baseline
