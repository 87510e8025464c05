// oneDNN's fp32 dense layer (inner product with bias), the vendor baseline
// for the bench suite's BERT-base dense: y[M,N] = x[M,K] * W + b[N], with W
// stored [N,K] (ONNX Gemm with transB=1, torch.nn.Linear's layout) or [K,N]
// (MatMul + Add, as Hugging Face's BERT exports store it).
//
// How it is called: x and y are plain row-major, like the tunectl kernel's
// arguments; the weights are a model constant, so oneDNN gets them in its
// preferred layout (format_tag::any), reordered once when the primitive is
// built (framework prepacking, not timed).
#pragma once

#include <cstdint>
#include <memory>

namespace tunectl::baseline {

enum class DenseWeights {
  OutIn,  // [n, k] row-major
  InOut,  // [k, n] row-major
};

class OneDnnDense {
 public:
  // weights in the given layout; bias: [n] or nullptr for none.
  OneDnnDense(int64_t m, int64_t k, int64_t n, const float* weights, const float* bias,
              DenseWeights layout = DenseWeights::OutIn);
  ~OneDnnDense();
  OneDnnDense(const OneDnnDense&) = delete;
  OneDnnDense& operator=(const OneDnnDense&) = delete;
  // x: [m, k]; y: [m, n].
  void run(const float* x, float* y);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunectl::baseline
