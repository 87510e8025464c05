#include "baseline/cudnn_conv2d.h"

#include <dlfcn.h>

#include <filesystem>

#include "ir/error.h"
#include "runtime/cuda_kernel.h"
#include "runtime/cuda_library.h"

namespace tunectl::baseline {

namespace {

// The part of cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h used here (cuDNN 9).
using Status = int;
constexpr int kTensorNchw = 0;       // CUDNN_TENSOR_NCHW
constexpr int kDataFloat = 0;        // CUDNN_DATA_FLOAT
constexpr int kCrossCorrelation = 1; // CUDNN_CROSS_CORRELATION
constexpr int kFmaMath = 3;          // CUDNN_FMA_MATH: no tensor cores

struct AlgoPerf {  // cudnnConvolutionFwdAlgoPerf_t
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

struct Cudnn {
  void* lib = nullptr;
  std::string why;
  Status (*Create)(void**) = nullptr;
  Status (*Destroy)(void*) = nullptr;
  Status (*CreateTensorDescriptor)(void**) = nullptr;
  Status (*SetTensor4dDescriptor)(void*, int, int, int, int, int, int) = nullptr;
  Status (*DestroyTensorDescriptor)(void*) = nullptr;
  Status (*CreateFilterDescriptor)(void**) = nullptr;
  Status (*SetFilter4dDescriptor)(void*, int, int, int, int, int, int) = nullptr;
  Status (*DestroyFilterDescriptor)(void*) = nullptr;
  Status (*CreateConvolutionDescriptor)(void**) = nullptr;
  Status (*SetConvolution2dDescriptor)(void*, int, int, int, int, int, int, int, int) = nullptr;
  Status (*SetConvolutionMathType)(void*, int) = nullptr;
  Status (*DestroyConvolutionDescriptor)(void*) = nullptr;
  Status (*FindConvolutionForwardAlgorithm)(void*, void*, void*, void*, void*, int, int*, AlgoPerf*) = nullptr;
  Status (*ConvolutionForward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, size_t,
                               const void*, void*, void*) = nullptr;
  const char* (*GetErrorString)(Status) = nullptr;
};

const Cudnn& cudnn() {
  static const Cudnn c = [] {
    Cudnn c;
    c.lib = runtime::open_cuda_library("libcudnn.so.9", c.why);
    if (!c.lib) return c;
    auto bind = [&](auto& f, const char* name) { runtime::bind_symbol(c.lib, f, name, "libcudnn.so.9", c.why); };
    bind(c.Create, "cudnnCreate");
    bind(c.Destroy, "cudnnDestroy");
    bind(c.CreateTensorDescriptor, "cudnnCreateTensorDescriptor");
    bind(c.SetTensor4dDescriptor, "cudnnSetTensor4dDescriptor");
    bind(c.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor");
    bind(c.CreateFilterDescriptor, "cudnnCreateFilterDescriptor");
    bind(c.SetFilter4dDescriptor, "cudnnSetFilter4dDescriptor");
    bind(c.DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor");
    bind(c.CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor");
    bind(c.SetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor");
    bind(c.SetConvolutionMathType, "cudnnSetConvolutionMathType");
    bind(c.DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor");
    bind(c.FindConvolutionForwardAlgorithm, "cudnnFindConvolutionForwardAlgorithm");
    bind(c.ConvolutionForward, "cudnnConvolutionForward");
    bind(c.GetErrorString, "cudnnGetErrorString");
    if (!c.why.empty()) c.lib = nullptr;
    return c;
  }();
  return c;
}

// cuDNN's front library opens its sub-libraries by name, which the loader
// finds only where the toolkit's folder is on its path: opened here first
// from the front library's own folder, they are found loaded.
void preload_sublibraries() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(cudnn().Create), &info) || !info.dli_fname) return;
  const std::string dir = std::filesystem::path(info.dli_fname).parent_path().string();
  for (const char* name : {"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9",
                           "libcudnn_engines_runtime_compiled.so.9", "libcudnn_engines_precompiled.so.9",
                           "libcudnn_heuristic.so.9"})
    dlopen((dir + "/" + name).c_str(), RTLD_NOW | RTLD_GLOBAL);  // a missing one: cuDNN's own error says so
}

void check(Status s, const char* what) {
  if (s != 0) user_fail("cuDNN ", what, " failed: ", cudnn().GetErrorString(s));
}

int to_int(int64_t v) { return static_cast<int>(v); }

}  // namespace

bool cudnn_available(std::string& why) {
  why = cudnn().why;
  return cudnn().lib != nullptr;
}

CudnnConv2d::CudnnConv2d(const Conv2dShape& shape) : shape_(shape) {
  internal_check(shape.groups == 1, "the cuDNN baseline wraps ungrouped convolutions only");
  const Cudnn& c = cudnn();
  user_check(c.lib != nullptr, "the cuDNN baseline: ", c.why);
  const runtime::CudaDriver& d = runtime::CudaDriver::get();
  preload_sublibraries();
  const Conv2dShape& p = shape_;
  check(c.Create(&handle_), "cudnnCreate");
  check(c.CreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
  check(c.SetTensor4dDescriptor(x_desc_, kTensorNchw, kDataFloat, to_int(p.n), to_int(p.c), to_int(p.h), to_int(p.w)),
        "cudnnSetTensor4dDescriptor");
  check(c.CreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
  check(c.SetTensor4dDescriptor(y_desc_, kTensorNchw, kDataFloat, to_int(p.n), to_int(p.k), to_int(p.out_h()),
                                to_int(p.out_w())),
        "cudnnSetTensor4dDescriptor");
  check(c.CreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
  check(c.SetFilter4dDescriptor(w_desc_, kDataFloat, kTensorNchw, to_int(p.k), to_int(p.c), to_int(p.r), to_int(p.s)),
        "cudnnSetFilter4dDescriptor");
  check(c.CreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");
  check(c.SetConvolution2dDescriptor(conv_desc_, to_int(p.pad), to_int(p.pad), to_int(p.stride), to_int(p.stride), 1,
                                     1, kCrossCorrelation, kDataFloat),
        "cudnnSetConvolution2dDescriptor");
  check(c.SetConvolutionMathType(conv_desc_, kFmaMath), "cudnnSetConvolutionMathType");
  d.check(d.MemAlloc(&x_, sizeof(float) * p.n * p.c * p.h * p.w), "cuMemAlloc");
  d.check(d.MemAlloc(&w_, sizeof(float) * p.k * p.c * p.r * p.s), "cuMemAlloc");
  d.check(d.MemAlloc(&y_, sizeof(float) * p.n * p.k * p.out_h() * p.out_w()), "cuMemAlloc");
  AlgoPerf perf[16] = {};
  int returned = 0;
  check(c.FindConvolutionForwardAlgorithm(handle_, x_desc_, w_desc_, conv_desc_, y_desc_, 16, &returned, perf),
        "cudnnFindConvolutionForwardAlgorithm");
  // Sorted fastest first; the first that ran.
  int best = -1;
  for (int i = 0; i < returned && best < 0; ++i)
    if (perf[i].status == 0) best = i;
  user_check(best >= 0, "cuDNN has no algorithm for this convolution");
  algo_ = perf[best].algo;
  workspace_bytes_ = perf[best].memory;
  if (workspace_bytes_ > 0) d.check(d.MemAlloc(&workspace_, workspace_bytes_), "cuMemAlloc (cuDNN workspace)");
}

CudnnConv2d::~CudnnConv2d() {
  const Cudnn& c = cudnn();
  if (conv_desc_) c.DestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_) c.DestroyFilterDescriptor(w_desc_);
  if (y_desc_) c.DestroyTensorDescriptor(y_desc_);
  if (x_desc_) c.DestroyTensorDescriptor(x_desc_);
  if (handle_) c.Destroy(handle_);
  const runtime::CudaDriver& d = runtime::CudaDriver::get();
  for (runtime::CUdeviceptr p : {x_, w_, y_, workspace_})
    if (p) d.MemFree(p);
}

void CudnnConv2d::convolve() const {
  const float alpha = 1, beta = 0;
  auto ptr = [](runtime::CUdeviceptr p) { return reinterpret_cast<void*>(p); };
  check(cudnn().ConvolutionForward(handle_, &alpha, x_desc_, ptr(x_), w_desc_, ptr(w_), conv_desc_, algo_,
                                   ptr(workspace_), workspace_bytes_, &beta, y_desc_, ptr(y_)),
        "cudnnConvolutionForward");
}

void CudnnConv2d::run(const float* x, const float* w, float* y) const {
  const runtime::CudaDriver& d = runtime::CudaDriver::get();
  const Conv2dShape& p = shape_;
  d.check(d.MemcpyHtoD(x_, x, sizeof(float) * p.n * p.c * p.h * p.w), "cuMemcpyHtoD");
  d.check(d.MemcpyHtoD(w_, w, sizeof(float) * p.k * p.c * p.r * p.s), "cuMemcpyHtoD");
  convolve();
  d.check(d.CtxSynchronize(), "cudnnConvolutionForward");
  d.check(d.MemcpyDtoH(y, y_, sizeof(float) * p.n * p.k * p.out_h() * p.out_w()), "cuMemcpyDtoH");
}

runtime::Timing CudnnConv2d::time(const runtime::TimingOptions& options) const {
  return runtime::time_on_device([&] { convolve(); }, options);
}

std::string CudnnConv2d::algorithm() const {
  return "algorithm " + std::to_string(algo_) + ", workspace " + std::to_string(workspace_bytes_) + " bytes";
}

}  // namespace tunectl::baseline
