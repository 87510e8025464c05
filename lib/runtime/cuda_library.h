// Opening a library of the CUDA Toolkit (NVRTC, cuBLAS, cuDNN) at run time:
// by its name on the loader's path, then under $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64, where NVIDIA's installer puts it.
#pragma once

#include <string>

namespace tunectl::runtime {

// dlopen's handle, or nullptr with `why` naming what was tried.
void* open_cuda_library(const std::string& soname, std::string& why);

}  // namespace tunectl::runtime
