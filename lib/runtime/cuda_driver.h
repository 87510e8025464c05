// The CUDA driver API, opened at run time with dlopen("libcuda.so.1"):
// tunectl links against nothing of CUDA and starts on machines without a
// driver (most machines: CI, laptops). This is the one place that talks to
// the driver; a machine "has CUDA" when the library opens, cuInit succeeds
// and it reports at least one device.
#pragma once

#include <optional>
#include <string>

#include "target/gpu_arch.h"

namespace tunectl::runtime {

// The first device's facts, read from the driver, or nullopt with `why` set
// ("no CUDA driver (libcuda.so.1: cannot open ...)", "cuInit failed: ...",
// "the CUDA driver reports no device").
std::optional<target::GpuFacts> cuda_device(std::string* why = nullptr);

}  // namespace tunectl::runtime
