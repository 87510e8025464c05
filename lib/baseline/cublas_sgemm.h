// cuBLAS SGEMM, the vendor baseline of GPU matmul benchmarks, opened at run
// time (libcublas.so.13; runtime/cuda_library.h) like everything of CUDA.
// Pedantic FP32: CUBLAS_PEDANTIC_MATH keeps tensor cores (TF32) off, so it
// computes what tunectl's fp32 kernels compute.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/cuda_driver.h"
#include "runtime/timer.h"

namespace tunectl::baseline {

// Whether libcublas.so.13 opens and has the functions used here (no device
// needed); `why` says what is missing otherwise.
bool cublas_available(std::string& why);

// C[m][n] = A[m][k] x B[k][n], row-major fp32, on device buffers it owns.
// UserError without cuBLAS or a device.
class CublasSgemm {
 public:
  CublasSgemm(int64_t m, int64_t n, int64_t k);
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;

  // Copies a and b in, multiplies, copies c out (for checks).
  void run(const float* a, const float* b, float* c) const;
  // Times the SGEMM alone on the device copies (runtime::time_on_device).
  runtime::Timing time(const runtime::TimingOptions& options) const;

 private:
  void multiply() const;

  int64_t m_, n_, k_;
  void* handle_ = nullptr;  // cublasHandle_t
  runtime::CUdeviceptr a_ = 0, b_ = 0, c_ = 0;
};

}  // namespace tunectl::baseline
