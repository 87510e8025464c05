#include "support/cuda_on_host.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>

#include "codegen/cuda/cuda_source.h"
#include "ir/dtype.h"
#include "lower/launch_dims.h"
#include "lower/lockstep_threads.h"

namespace tunectl::testing {

namespace {

// What the generated source uses of CUDA, for the host compiler. The runner
// sets tc_current before it resumes a thread and tc_sync_hook to its
// barrier.
constexpr const char* kShim = R"(#include <cmath>
#include <cstring>
#include <math.h>
struct tc_dim3 { unsigned x, y, z; };
struct tc_thread_state { tc_dim3 thread, block; };
extern "C" { tc_thread_state* tc_current = nullptr; void (*tc_sync_hook)() = nullptr; }
#define threadIdx (tc_current->thread)
#define blockIdx (tc_current->block)
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() tc_sync_hook()
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
// The float16 conversions the source defines for the device only (cvt).
inline float tc_h2f(unsigned short h) { _Float16 f; std::memcpy(&f, &h, 2); return static_cast<float>(f); }
template <typename T> inline unsigned short tc_to_half(T v) {
  const _Float16 f = static_cast<_Float16>(v);
  unsigned short h;
  std::memcpy(&h, &f, 2);
  return h;
}
inline unsigned short tc_f2h(float v) { return tc_to_half(v); }
inline unsigned short tc_d2h(double v) { return tc_to_half(v); }
)";

struct ThreadState {
  unsigned thread[3], block[3];
};

// A C function taking the kernel's arguments from an array of pointers.
std::string entry_point(const lower::LoweredFunc& f) {
  std::string call = f.name + "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    call += std::string(i ? ", " : "") + "(" + codegen::cuda::cuda_c_type(f.args[i]->dtype) + "*)args[" +
            std::to_string(i) + "]";
  }
  return "extern \"C\" void tc_entry_" + f.name + "(void* const* args) { " + call + "); }\n";
}

// The block whose threads are running, and the module's tc_current.
thread_local lower::LockstepThreads* running_block = nullptr;
thread_local ThreadState** current_slot = nullptr;

// __syncthreads: waits at the block's barrier, then names this thread to
// the module again (the other threads have run in between).
void sync_hook() {
  ThreadState* me = *current_slot;
  running_block->barrier();
  *current_slot = me;
}

}  // namespace

CudaOnHost::CudaOnHost(const std::vector<const lower::LoweredFunc*>& funcs, const std::string& dir) {
  std::string source = std::string(kShim) + codegen::cuda::cuda_source(funcs) + "\n";
  for (const lower::LoweredFunc* f : funcs) {
    source += entry_point(*f);
    for (const lower::InputPacking& p : f->packings) source += entry_point(p.func);
  }
  const std::string src = dir + "/kernels.cpp", lib = dir + "/kernels.so", log = dir + "/compile.log";
  std::ofstream(src) << source;
  const char* cxx = std::getenv("CXX");
  const std::string command = std::string(cxx ? cxx : "c++") + " -std=c++17 -O1 -shared -fPIC -w -o " + lib + " " +
                              src + " > " + log + " 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FAIL("the host compiler rejects the CUDA source (" << command << "):\n" << text.substr(0, 4000));
  }
  handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) FAIL("cannot load " << lib << ": " << dlerror());
}

CudaOnHost::~CudaOnHost() {
  if (handle_) dlclose(handle_);
}

void CudaOnHost::run(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const {
  auto entry = reinterpret_cast<void (*)(void* const*)>(dlsym(handle_, ("tc_entry_" + func.name).c_str()));
  auto** current = static_cast<ThreadState**>(dlsym(handle_, "tc_current"));
  auto* hook = static_cast<void (**)()>(dlsym(handle_, "tc_sync_hook"));
  REQUIRE((entry && current && hook));
  *hook = sync_hook;
  std::vector<void*> raw;
  for (runtime::NDArray* a : args) raw.push_back(a->raw());
  const lower::LaunchDims d = lower::launch_dims(func);
  const auto threads = static_cast<size_t>(d.threads_per_block());
  lower::LockstepThreads block(threads);
  running_block = &block;
  current_slot = current;
  std::vector<ThreadState> states(threads);
  for (int64_t bz = 0; bz < d.grid[2]; ++bz) {
    for (int64_t by = 0; by < d.grid[1]; ++by) {
      for (int64_t bx = 0; bx < d.grid[0]; ++bx) {
        for (size_t t = 0; t < threads; ++t) {
          const auto tx = static_cast<unsigned>(t % d.block[0]), ty = static_cast<unsigned>(t / d.block[0] % d.block[1]);
          const auto tz = static_cast<unsigned>(t / (d.block[0] * d.block[1]));
          states[t] = {{tx, ty, tz}, {static_cast<unsigned>(bx), static_cast<unsigned>(by), static_cast<unsigned>(bz)}};
        }
        block.run(threads, [&](size_t t) {
          *current = &states[t];
          entry(raw.data());
        });
      }
    }
  }
  running_block = nullptr;
}

}  // namespace tunectl::testing
