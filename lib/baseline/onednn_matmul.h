// oneDNN, the vendor baseline that benchmarks compare generated kernels with.
// The only place that includes oneDNN headers (STYLE.md habit 8).
#pragma once

#include <cstdint>
#include <memory>

namespace tunectl::baseline {

// C[M,N] = A[M,K] * B[K,N], fp32, row-major, on oneDNN's CPU engine.
class OneDnnMatmul {
 public:
  OneDnnMatmul(int64_t m, int64_t n, int64_t k);
  ~OneDnnMatmul();
  OneDnnMatmul(const OneDnnMatmul&) = delete;
  OneDnnMatmul& operator=(const OneDnnMatmul&) = delete;
  void run(const float* a, const float* b, float* c);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunectl::baseline
