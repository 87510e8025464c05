// cuDNN convolution forward, the vendor baseline of GPU convolution
// benchmarks, opened at run time (libcudnn.so.9; runtime/cuda_library.h):
// NCHW fp32, cross-correlation as ONNX's Conv, CUDNN_FMA_MATH (no tensor
// cores), the fastest algorithm cudnnFindConvolutionForwardAlgorithm
// measures, with its workspace allocated once.
#pragma once

#include <cstdint>
#include <string>

#include "baseline/conv2d_shape.h"
#include "runtime/cuda_driver.h"
#include "runtime/timer.h"

namespace tunectl::baseline {

// Whether libcudnn.so.9 opens and has the functions used here (no device
// needed); `why` says what is missing otherwise.
bool cudnn_available(std::string& why);

// UserError without cuDNN or a device.
class CudnnConv2d {
 public:
  explicit CudnnConv2d(const Conv2dShape& shape);
  ~CudnnConv2d();
  CudnnConv2d(const CudnnConv2d&) = delete;
  CudnnConv2d& operator=(const CudnnConv2d&) = delete;

  // Copies x and w in, convolves, copies y out (for checks).
  void run(const float* x, const float* w, float* y) const;
  // Times the convolution alone on the device copies (runtime::time_on_device).
  runtime::Timing time(const runtime::TimingOptions& options) const;
  // The algorithm cuDNN picked and its workspace, for the bench's table.
  std::string algorithm() const;

 private:
  void convolve() const;

  Conv2dShape shape_;
  void* handle_ = nullptr;
  void* x_desc_ = nullptr;
  void* y_desc_ = nullptr;
  void* w_desc_ = nullptr;
  void* conv_desc_ = nullptr;
  int algo_ = 0;
  size_t workspace_bytes_ = 0;
  runtime::CUdeviceptr x_ = 0, w_ = 0, y_ = 0, workspace_ = 0;
};

}  // namespace tunectl::baseline
