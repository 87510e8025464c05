// Opening a library of the CUDA Toolkit (NVRTC, cuBLAS, cuDNN) at run time:
// by its name on the loader's path, then under $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64, where NVIDIA's installer puts it.
#pragma once

#include <dlfcn.h>

#include <string>

namespace tunectl::runtime {

// dlopen's handle, or nullptr with `why` naming what was tried.
void* open_cuda_library(const std::string& soname, std::string& why);

// f = the function `name` of the library `handle`; when it has none, sets
// why (if still empty) to "<library> has no <name>".
template <typename F>
void bind_symbol(void* handle, F& f, const char* name, const std::string& library, std::string& why) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  if (!f && why.empty()) why = library + " has no " + name;
}

}  // namespace tunectl::runtime
