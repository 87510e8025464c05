// Loading a kernels folder: the manifest says which symbols the shared
// library holds; dlopen maps it and dlsym finds each kernel. RTLD_NOW makes a
// library that cannot resolve tunectl_parallel_for (a loading process that
// does not export it) fail here, with dlerror's message, not at the first
// parallel call; RTLD_LOCAL keeps two loaded folders' symbols apart. The
// manifest's target is checked against this machine's CPU first.
#include <dlfcn.h>

#include <filesystem>

#include "ir/error.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_files.h"

namespace tunectl::kernels {

KernelLibrary::KernelLibrary(const std::string& dir) : manifest_(read_manifest(dir)) {
  // Code for a CPU feature this machine lacks would die of SIGILL at its
  // first call: refuse it now, naming the features.
  backend::make_backend(backend::resolve_target(manifest_.target))->check_runs_here("kernels folder " + dir + " holds");
  user_check(!manifest_.library.empty(), "kernels folder ", dir, " holds ", manifest_.target,
             " binaries, one per kernel, not a shared library of host functions");
  std::string path = std::filesystem::absolute(std::filesystem::path(dir) / kLibraryName).string();
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = ::dlerror();
    user_fail("cannot load ", path, ": ", why ? why : "unknown dlopen error");
  }
  auto lookup = [&](const std::string& symbol, const KernelEntry& e) {
    void* sym = ::dlsym(handle_, symbol.c_str());
    if (sym == nullptr) {
      ::dlclose(handle_);
      handle_ = nullptr;
      user_fail(path, " has no function ", symbol, " (task ", e.task_name, ") that its manifest lists");
    }
    return reinterpret_cast<runtime::KernelFn>(sym);
  };
  for (const KernelEntry& e : manifest_.kernels) {
    by_key_[e.workload_key] = lookup(e.symbol, e);
    for (const KernelPacking& p : e.packings) packings_[p.symbol] = lookup(p.symbol, e);
  }
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

runtime::KernelFn KernelLibrary::find(const std::string& workload_key) const {
  auto it = by_key_.find(workload_key);
  return it == by_key_.end() ? nullptr : it->second;
}

runtime::KernelFn KernelLibrary::find_packing(const std::string& symbol) const {
  auto it = packings_.find(symbol);
  return it == packings_.end() ? nullptr : it->second;
}

}  // namespace tunectl::kernels
