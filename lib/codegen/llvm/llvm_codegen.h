// LLVM code generation: LoweredFunc -> native code for a CPU target (the
// backend lib/backend/llvm_backend.cpp wraps it). Vectorized loops become
// vector instructions, parallel loops are outlined and run on the runtime
// thread pool, unrolled loops are unrolled. The target's CPU name and -mattr
// features are handed to LLVM. LLVM types never appear in this header
// (STYLE.md habit 8).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lower/lower.h"
#include "runtime/kernel.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tunectl::codegen {

using runtime::KernelFn;

// A kernel compiled in process with ORC; owns its JIT session.
class JitKernel : public runtime::Kernel {
 public:
  ~JitKernel() override;
  JitKernel(JitKernel&&) noexcept;
  JitKernel& operator=(JitKernel&&) noexcept;
  KernelFn entry() const { return entry_; }
  const std::string& name() const override { return name_; }
  void run(void* const* args) const override { entry_(args); }
  std::vector<void*> pack_inputs(std::vector<void*> args, std::vector<runtime::NDArray>& packed) const override;
  std::vector<int> packed_args() const override;

 private:
  friend JitKernel jit_compile(const lower::LoweredFunc&, const target::Target&);
  struct Impl;
  struct Packing {
    int arg = 0;
    ir::DType dtype = ir::DType::Float32;
    std::vector<int64_t> shape;
    KernelFn entry = nullptr;
  };
  JitKernel(std::unique_ptr<Impl> impl, KernelFn entry, std::string name, std::vector<Packing> packings);
  std::unique_ptr<Impl> impl_;
  KernelFn entry_ = nullptr;
  std::string name_;
  std::vector<Packing> packings_;
};

// The target a spec names, its features from LLVM's CPU tables (the host's
// when the spec names no CPU and no feature). `text` is the string the spec
// came from, for messages. UserError for a CPU or feature LLVM does not know.
target::Target resolve_cpu_target(const target::TargetSpec& spec, const std::string& text);
// The features of target.features that this machine's CPU lacks.
std::vector<std::string> missing_host_features(const target::Target& target);

JitKernel jit_compile(const lower::LoweredFunc& func, const target::Target& target);

// The optimized LLVM IR of func as text (for `tunectl compile-op --emit llvm`).
std::string emit_llvm_ir(const lower::LoweredFunc& func, const target::Target& target);
// Assembly of func for the target as text.
std::string emit_assembly(const lower::LoweredFunc& func, const target::Target& target);
// Writes a relocatable object file for the target with one exported symbol
// named func.name, and one per packing named by its func (KernelFn
// signature).
void emit_object_file(const lower::LoweredFunc& func, const target::Target& target, const std::string& path);

}  // namespace tunectl::codegen
