// Private to lib/backend: the CPU backend, LLVM code generation
// (lib/codegen/llvm) behind the Backend interface. Kernels are JIT-compiled
// with ORC to run here and written as relocatable object files.
#pragma once

#include "backend/backend.h"

namespace tunectl::backend {

target::Target resolve_llvm_target(const target::TargetSpec& spec, const std::string& text);

class LlvmBackend final : public Backend {
 public:
  using Backend::Backend;
  std::unique_ptr<runtime::Kernel> build(const lower::LoweredFunc& func) const override;
  void write(const lower::LoweredFunc& func, const std::string& path) const override;
  std::string file_suffix() const override { return ".o"; }
  bool builds_device_code() const override { return false; }
  bool links_objects() const override { return true; }
  nlohmann::json launch_config(const lower::LoweredFunc&) const override { return nullptr; }
  std::vector<std::string> emit_kinds() const override { return {"llvm", "asm"}; }
  std::string emit(const lower::LoweredFunc& func, const std::string& kind) const override;
  schedule::State default_schedule(std::shared_ptr<const te::ComputeDAG> dag) const override;
  std::optional<std::string> why_not_here() const override;
  void emulate(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const override;
};

}  // namespace tunectl::backend
