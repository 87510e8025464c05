// LLVM backend: LoweredFunc -> native code for the host CPU. Vectorized loops
// become vector instructions, parallel loops are outlined and run on the
// runtime thread pool, unrolled loops are unrolled. The host's CPU name and
// features are the target (AVX-512 on the reference machine). LLVM types never
// appear in this header (STYLE.md habit 8).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lower/lower.h"
#include "runtime/ndarray.h"

namespace tunectl::codegen {

// The calling convention of every generated kernel: one pointer per argument
// buffer, in LoweredFunc::args order.
using KernelFn = void (*)(void* const* args);

// A kernel compiled in process with ORC; owns its JIT session.
class JitKernel {
 public:
  ~JitKernel();
  JitKernel(JitKernel&&) noexcept;
  JitKernel& operator=(JitKernel&&) noexcept;
  KernelFn entry() const { return entry_; }
  const std::string& name() const { return name_; }
  // args in LoweredFunc::args order (packed inputs packed).
  void run(void* const* args) const { entry_(args); }

  // The arguments to run the kernel on, from args in LoweredFunc::args order
  // except that every packed input is still in its placeholder layout: each
  // of those is packed (LoweredFunc::packings) into a new array appended to
  // `packed`, which takes its place. Packing is not part of a kernel call:
  // callers pack once, then run and time the kernel.
  std::vector<void*> pack_inputs(std::vector<void*> args, std::vector<runtime::NDArray>& packed) const;
  // pack_inputs, then one call: for checks, not for timing.
  void pack_and_run(std::vector<void*> args) const;
  // The arguments pack_inputs replaces (LoweredFunc::packings' `arg`).
  std::vector<int> packed_args() const;

 private:
  friend JitKernel jit_compile(const lower::LoweredFunc&);
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

JitKernel jit_compile(const lower::LoweredFunc& func);

// The optimized LLVM IR of func as text (for `tunectl compile --emit llvm`).
std::string emit_llvm_ir(const lower::LoweredFunc& func);
// Host assembly of func as text.
std::string emit_assembly(const lower::LoweredFunc& func);
// Writes a relocatable object file for the host with one exported symbol
// named func.name, and one per packing named by its func (KernelFn
// signature).
void emit_object_file(const lower::LoweredFunc& func, const std::string& path);

}  // namespace tunectl::codegen
