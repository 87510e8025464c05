// jit_compile: build, optimize and load a kernel in process with ORC's LLJIT.
// Symbols the kernel calls resolve first against the explicit table below
// (the thread pool entry, the libm functions codegen names and the pool of
// heap intermediates in place of aligned_alloc and free), then against
// everything the current process has loaded.
#include <cmath>
#include <cstdlib>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/ir_builder.h"
#include "codegen/llvm/llvm_codegen.h"
#include "codegen/llvm/optimize.h"
#include "codegen/llvm/target.h"
#include "ir/error.h"
#include "runtime/scratch_pool.h"
#include "runtime/thread_pool.h"

namespace tunectl::codegen {
namespace {

// LLVM errors end here, once, as InternalErrors: by now the kernel has been
// built from valid IR, so a failure is ours to fix.
template <typename T>
T unwrap(llvm::Expected<T> value, const char* what) {
  if (!value) internal_fail(what, ": ", llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error, const char* what) {
  if (error) internal_fail(what, ": ", llvm::toString(std::move(error)));
}

llvm::orc::SymbolMap runtime_symbols(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](const char* name, auto* fn) {
    symbols[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn), llvm::JITSymbolFlags::Exported};
  };
  // Named explicitly so a host binary need not export them dynamically.
  add("tunectl_parallel_for", &tunectl_parallel_for);
  add("tanhf", static_cast<float (*)(float)>(&::tanhf));
  add("erff", static_cast<float (*)(float)>(&::erff));
  add("tanh", static_cast<double (*)(double)>(&::tanh));
  add("erf", static_cast<double (*)(double)>(&::erf));
  // A kernel's heap intermediates, pooled (runtime/scratch_pool.h).
  add("aligned_alloc", &tunectl_scratch_alloc);
  add("free", &tunectl_scratch_free);
  return symbols;
}

}  // namespace

struct JitKernel::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

JitKernel::JitKernel(std::unique_ptr<Impl> impl, KernelFn entry, std::string name, std::vector<Packing> packings)
    : impl_(std::move(impl)), entry_(entry), name_(std::move(name)), packings_(std::move(packings)) {}
JitKernel::~JitKernel() = default;
JitKernel::JitKernel(JitKernel&&) noexcept = default;
JitKernel& JitKernel::operator=(JitKernel&&) noexcept = default;

JitKernel jit_compile(const lower::LoweredFunc& func, const target::Target& target) {
  auto tm = make_target_machine(target);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto module = build_module(func, *ctx, *tm);
  optimize_module(*module, *tm);

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  jtmb.addFeatures(target.mattr);
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto impl = std::make_unique<JitKernel::Impl>();
  impl->jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                     "creating the JIT");
  llvm::orc::JITDylib& lib = impl->jit->getMainJITDylib();
  check(lib.define(llvm::orc::absoluteSymbols(runtime_symbols(*impl->jit))), "defining runtime symbols");
  lib.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                              impl->jit->getDataLayout().getGlobalPrefix()),
                          "searching the current process for symbols"));
  check(impl->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx))),
        "adding the kernel module");
  auto entry = unwrap(impl->jit->lookup(func.name), "looking up the kernel").toPtr<KernelFn>();
  std::vector<JitKernel::Packing> packings;
  for (const lower::InputPacking& p : func.packings) {
    const ir::Buffer& packed = func.args.at(p.arg);
    KernelFn pack = unwrap(impl->jit->lookup(p.func.name), "looking up a packing").toPtr<KernelFn>();
    packings.push_back({p.arg, packed->dtype, packed->shape, pack});
  }
  return JitKernel(std::move(impl), entry, func.name, std::move(packings));
}

std::vector<void*> JitKernel::pack_inputs(std::vector<void*> args, std::vector<runtime::NDArray>& packed) const {
  for (const Packing& p : packings_) {
    internal_check(p.arg < static_cast<int>(args.size()), "kernel ", name_, ": no argument ", p.arg, " to pack");
    packed.emplace_back(p.dtype, p.shape);
    void* pack_args[2] = {args[p.arg], packed.back().raw()};
    p.entry(pack_args);
    args[p.arg] = packed.back().raw();
  }
  return args;
}

std::vector<int> JitKernel::packed_args() const {
  std::vector<int> args;
  for (const Packing& p : packings_) args.push_back(p.arg);
  return args;
}

}  // namespace tunectl::codegen
