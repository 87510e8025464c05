#include "support/cuda_on_host.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "codegen/cuda/cuda_source.h"
#include "ir/dtype.h"
#include "lower/launch_dims.h"

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
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() tc_sync_hook()
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
)";

struct ThreadState {
  unsigned thread[3], block[3];
};

// A C function taking the kernel's arguments from an array of pointers.
std::string entry_point(const lower::LoweredFunc& f) {
  std::string call = f.name + "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    const char* type = f.args[i]->dtype == ir::DType::Float32   ? "float"
                       : f.args[i]->dtype == ir::DType::Float64 ? "double"
                       : f.args[i]->dtype == ir::DType::Int32   ? "int"
                       : f.args[i]->dtype == ir::DType::Int64   ? "long long"
                                                                : "bool";
    call += std::string(i ? ", " : "") + "(" + type + "*)args[" + std::to_string(i) + "]";
  }
  return "extern \"C\" void tc_entry_" + f.name + "(void* const* args) { " + call + "); }\n";
}

// The fibers of one block.
struct Block {
  ucontext_t scheduler{};
  struct Fiber {
    ucontext_t context{};
    ThreadState state{};
    bool done = false, waiting = false;
  };
  std::vector<Fiber> fibers;
  size_t running = 0;
  void (*entry)(void* const*) = nullptr;
  void* const* args = nullptr;
};

thread_local Block* current_block = nullptr;

void sync_hook() {
  Block& b = *current_block;
  b.fibers[b.running].waiting = true;
  swapcontext(&b.fibers[b.running].context, &b.scheduler);
}

void fiber_main() {
  Block& b = *current_block;
  b.entry(b.args);
  b.fibers[b.running].done = true;
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
  constexpr size_t kStack = 256 << 10;
  const size_t threads = static_cast<size_t>(d.threads_per_block());
  void* stacks = mmap(nullptr, threads * kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
  REQUIRE(stacks != MAP_FAILED);
  std::unique_ptr<void, std::function<void(void*)>> unmap(stacks, [&](void* p) { munmap(p, threads * kStack); });
  for (int64_t bz = 0; bz < d.grid[2]; ++bz) {
    for (int64_t by = 0; by < d.grid[1]; ++by) {
      for (int64_t bx = 0; bx < d.grid[0]; ++bx) {
        Block block;
        block.entry = entry;
        block.args = raw.data();
        block.fibers.resize(threads);
        for (size_t t = 0; t < threads; ++t) {
          Block::Fiber& f = block.fibers[t];
          const auto tx = static_cast<unsigned>(t % d.block[0]), ty = static_cast<unsigned>(t / d.block[0] % d.block[1]);
          const auto tz = static_cast<unsigned>(t / (d.block[0] * d.block[1]));
          f.state = {{tx, ty, tz}, {static_cast<unsigned>(bx), static_cast<unsigned>(by), static_cast<unsigned>(bz)}};
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = static_cast<char*>(stacks) + t * kStack;
          f.context.uc_stack.ss_size = kStack;
          f.context.uc_link = &block.scheduler;
          makecontext(&f.context, fiber_main, 0);
        }
        current_block = &block;
        for (bool any_waiting = true; any_waiting;) {
          for (size_t t = 0; t < threads; ++t) {
            Block::Fiber& f = block.fibers[t];
            if (f.done) continue;
            f.waiting = false;
            block.running = t;
            *current = &f.state;
            swapcontext(&block.scheduler, &f.context);
          }
          size_t done = 0, waiting = 0;
          for (const Block::Fiber& f : block.fibers) (f.done ? done : waiting) += 1;
          any_waiting = waiting > 0;
          if (any_waiting && done > 0) throw std::runtime_error("a __syncthreads that not every thread reaches");
        }
        current_block = nullptr;
      }
    }
  }
}

}  // namespace tunectl::testing
