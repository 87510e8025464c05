// oneDNN's fp32 2-D convolution with bias and an optional ReLU post-op, the
// vendor baseline for the bench suite's ResNet-50 convolutions. The only
// place besides the other baseline/*.cpp files that includes oneDNN headers
// (STYLE.md habit 8).
//
// How it is called ("as a framework would"): activations are plain NCHW in
// and out, like the tunectl kernel's arguments; oneDNN picks its own layouts
// (format_tag::any, a channel-blocked one on AVX-512), and the reorders of
// the input to that layout and of the output back to NCHW run inside run(),
// so they are timed. The weights and bias are constants of the model, so
// they are reordered once when the primitive is built, as ONNX Runtime and
// PyTorch prepack them at load time; that reorder is not timed.
#pragma once

#include <cstdint>
#include <memory>

#include "baseline/conv2d_shape.h"

namespace tunectl::baseline {

class OneDnnConv2d {
 public:
  // weights: OIHW [k, c / groups, r, s]; bias: [k] or nullptr for none. Both are
  // copied into oneDNN's layout here.
  OneDnnConv2d(const Conv2dShape& shape, const float* weights, const float* bias, bool relu);
  ~OneDnnConv2d();
  OneDnnConv2d(const OneDnnConv2d&) = delete;
  OneDnnConv2d& operator=(const OneDnnConv2d&) = delete;
  // src: NCHW [n, c, h, w]; dst: NCHW [n, k, out_h, out_w].
  void run(const float* src, float* dst);
  // The convolution alone, from and to buffers of its own in the layouts it
  // chose, as between two layers of a network kept in those layouts (the
  // bench suite's rows of channel-blocked convolutions). Their contents are
  // whatever the last run left.
  void run_native();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunectl::baseline
