#include "backend/backend.h"

#include "backend/cuda_backend.h"
#include "backend/llvm_backend.h"
#include "ir/error.h"

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

CheckRun check_run(const Backend& backend, const lower::LoweredFunc& func) {
  CheckRun c;
  c.emulated_because = backend.why_not_here();
  if (c.emulated_because) {
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

std::shared_ptr<const Backend> host_backend() {
  static const std::shared_ptr<const Backend> host = make_backend(resolve_target("llvm"));
  return host;
}

}  // namespace tunectl::backend
