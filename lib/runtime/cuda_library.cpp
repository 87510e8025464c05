#include "runtime/cuda_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace tunectl::runtime {

void* open_cuda_library(const std::string& soname, std::string& why) {
  std::vector<std::string> paths = {soname};
  if (const char* home = std::getenv("CUDA_HOME")) paths.push_back(std::string(home) + "/lib64/" + soname);
  paths.push_back("/usr/local/cuda/lib64/" + soname);
  std::string tried;
  for (const std::string& path : paths) {
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  why = soname + " was not found (tried " + tried + "); install the CUDA Toolkit 13 or set CUDA_HOME";
  return nullptr;
}

}  // namespace tunectl::runtime
