// ONNX DFT: the discrete Fourier transform of a signal along one axis. The
// input's last axis holds each value, real ([..., 1]) or complex ([..., 2]:
// real, imaginary); the output's last axis is complex. A direct sum over
// the signal per output frequency (no FFT): the sum of a task the search
// tiles like any reduction.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

struct DftAttrs {
  int64_t axis = 1;       // the signal's axis, not the last one
  int64_t length = 0;     // the transform's length: the signal cut or padded with zeros (0: the axis' extent)
  bool inverse = false;   // e^{+2 pi i k n / L} / L instead of e^{-2 pi i k n / L}
  bool onesided = false;  // frequencies 0 .. L/2 only
};

// UserError when the attributes do not fit x's shape.
te::Tensor dft(const te::Tensor& x, const DftAttrs& a, const std::string& name = "dft");

}  // namespace tunectl::ops
