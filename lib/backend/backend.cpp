#include "backend/backend.h"

#include <cstring>

#include "backend/cuda_backend.h"
#include "backend/llvm_backend.h"
#include "ir/error.h"
#include "runtime/emulated_device_memory.h"

namespace tunectl::backend {

target::Target resolve_target(const std::string& text) {
  const target::TargetSpec spec = target::parse_target_string(text);
  switch (spec.kind) {
    case target::TargetKind::Llvm:
      return resolve_llvm_target(spec, text);
    case target::TargetKind::Cuda:
      return resolve_cuda_target(spec, text);
  }
  internal_fail("no backend resolves target kind ", target::to_string(spec.kind));
}

std::unique_ptr<Backend> make_backend(const target::Target& target) {
  switch (target.kind) {
    case target::TargetKind::Llvm:
      return std::make_unique<LlvmBackend>(target);
    case target::TargetKind::Cuda:
      return std::make_unique<CudaBackend>(target);
  }
  internal_fail("no backend for target kind ", target::to_string(target.kind));
}

void Backend::check_runs_here(const std::string& what) const {
  if (std::optional<std::string> why = why_not_here())
    user_fail(what, " code for target '", target_.str(), "', but ", *why);
}

bool Backend::emulate_sample(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args,
                             int64_t) const {
  emulate(func, args);
  return false;
}

CheckRun check_run(const Backend& backend, const lower::LoweredFunc& func, bool sample) {
  CheckRun c;
  c.emulated_because = backend.why_not_here();
  if (c.emulated_because && sample && backend.builds_device_code()) {
    c.partial = true;
    c.run = [&backend, &func](const std::vector<runtime::NDArray*>& args) {
      backend.emulate_sample(func, args, kSampledBlocks);
    };
  } else if (c.emulated_because) {
    c.run = [&backend, &func](const std::vector<runtime::NDArray*>& args) { backend.emulate(func, args); };
  } else {
    std::shared_ptr<runtime::Kernel> kernel = backend.build(func);
    c.run = [kernel](const std::vector<runtime::NDArray*>& args) {
      std::vector<void*> raw;
      for (runtime::NDArray* a : args) raw.push_back(a->raw());
      kernel->pack_and_run(raw);
    };
  }
  return c;
}

namespace {

class EmulatedKernel : public runtime::Kernel {
 public:
  EmulatedKernel(std::shared_ptr<const Backend> backend, lower::LoweredFunc func)
      : backend_(std::move(backend)), func_(std::move(func)) {
    for (const ir::Buffer& b : func_.args) layouts_.push_back(b);
    // A prepacked argument comes in its placeholder's layout.
    for (const lower::InputPacking& p : func_.packings) layouts_.at(p.arg) = p.func.args.at(0);
  }
  const std::string& name() const override { return func_.name; }
  void run(void* const* args) const override {
    std::vector<runtime::NDArray> arrays;
    std::vector<runtime::NDArray*> pointers;
    arrays.reserve(layouts_.size());
    for (size_t i = 0; i < layouts_.size(); ++i) {
      arrays.emplace_back(layouts_[i]->dtype, layouts_[i]->shape);
      std::memcpy(arrays.back().raw(), args[i], arrays.back().num_bytes());
      pointers.push_back(&arrays.back());
    }
    backend_->emulate(func_, pointers);
    for (size_t i = 0; i < layouts_.size(); ++i) std::memcpy(args[i], arrays[i].raw(), arrays[i].num_bytes());
  }
  // A device target's kernels keep their arguments in (emulated) device
  // memory, as they would on the device.
  const runtime::DeviceMemory* device_memory() const override {
    return backend_->builds_device_code() ? &runtime::emulated_device_memory() : nullptr;
  }
  void launch(void* const* device_args) const override {
    for (size_t i = 0; i < layouts_.size(); ++i) {
      const auto bytes = static_cast<size_t>(layouts_[i]->num_bytes());
      internal_check(!device_memory() || runtime::emulated_device_memory().contains(device_args[i], bytes),
                     "kernel ", func_.name, ": argument ", i, " (", layouts_[i]->name, ") is not in device memory");
    }
    run(device_args);
  }
  std::vector<void*> pack_inputs(std::vector<void*> args, std::vector<runtime::NDArray>&) const override {
    return args;
  }
  std::vector<int> packed_args() const override { return {}; }

 private:
  std::shared_ptr<const Backend> backend_;
  lower::LoweredFunc func_;
  std::vector<ir::Buffer> layouts_;  // of each argument as run() takes it
};

}  // namespace

std::unique_ptr<runtime::Kernel> emulated_kernel(std::shared_ptr<const Backend> backend, lower::LoweredFunc func) {
  return std::make_unique<EmulatedKernel>(std::move(backend), std::move(func));
}

std::shared_ptr<const Backend> host_backend() {
  static const std::shared_ptr<const Backend> host = make_backend(resolve_target("llvm"));
  return host;
}

}  // namespace tunectl::backend
