#include "support/cuda_on_host.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>

#include "codegen/cuda/cuda_source.h"
#include "ir/dtype.h"
#include "lower/launch_dims.h"
#include "support/host_grid.h"

namespace tunectl::testing {

namespace {

// What the generated source uses of CUDA, for the host compiler. The runner
// sets tc_current before it resumes a thread and tc_sync_hook to its
// barrier. C's headers alone (compiled with -nostdinc++): the source calls
// the C functions (expf and llabs, not std::exp), and libstdc++'s headers
// took two thirds of each compile (0.39 -> 0.16 s for a GEMM's kernels).
constexpr const char* kShim = R"(#include <math.h>
#include <stdlib.h>
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
// A shuffle: every thread of the (one-dimensional) block puts its value
// out, then reads its partner's; the second barrier keeps the slots until
// all have read.
template <typename T> T __shfl_xor_sync(unsigned, T v, unsigned offset, unsigned) {
  static T slots[1024];
  slots[threadIdx.x] = v;
  tc_sync_hook();
  const T other = slots[threadIdx.x ^ offset];
  tc_sync_hook();
  return other;
}
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
inline float __int_as_float(int i) { float f; __builtin_memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double d; __builtin_memcpy(&d, &i, 8); return d; }
// The float16 conversions the source defines for the device only (cvt).
inline float tc_h2f(unsigned short h) { _Float16 f; __builtin_memcpy(&f, &h, 2); return static_cast<float>(f); }
template <typename T> inline unsigned short tc_to_half(T v) {
  const _Float16 f = static_cast<_Float16>(v);
  unsigned short h;
  __builtin_memcpy(&h, &f, 2);
  return h;
}
inline unsigned short tc_f2h(float v) { return tc_to_half(v); }
inline unsigned short tc_d2h(double v) { return tc_to_half(v); }
)";

// A C function taking the kernel's arguments from an array of pointers,
// and their count.
std::string entry_point(const lower::LoweredFunc& f) {
  std::string call = f.name + "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    call += std::string(i ? ", " : "") + "(" + codegen::cuda::cuda_c_type(f.args[i]->dtype) + "*)args[" +
            std::to_string(i) + "]";
  }
  return "extern \"C\" void tc_entry_" + f.name + "(void* const* args) { " + call + "); }\n" +
         "extern \"C\" const int tc_num_args_" + f.name + " = " + std::to_string(f.args.size()) + ";\n";
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
  const std::string command = std::string(cxx ? cxx : "c++") + " -std=c++17 -nostdinc++ -O1 -shared -fPIC -w -o " + lib + " " +
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
  std::vector<void*> raw;
  for (runtime::NDArray* a : args) raw.push_back(a->raw());
  const lower::LaunchDims d = lower::launch_dims(func);
  run_host_grid(handle_, func.name, d.grid, d.block, raw.data());
}

}  // namespace tunectl::testing
