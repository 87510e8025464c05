// Ahead-of-time outputs of the LLVM backend: optimized IR text, host
// assembly, and relocatable object files (the kernels/ directory of a tuning
// run). All three compile the same optimized module that jit_compile loads.
#include <system_error>

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/ir_builder.h"
#include "codegen/llvm/llvm_codegen.h"
#include "codegen/llvm/optimize.h"
#include "codegen/llvm/target.h"
#include "ir/error.h"

namespace tunectl::codegen {
namespace {

struct OptimizedModule {
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;
};

OptimizedModule build_optimized(const lower::LoweredFunc& func, const target::Target& target) {
  OptimizedModule m;
  m.tm = make_target_machine(target);
  m.ctx = std::make_unique<llvm::LLVMContext>();
  m.module = build_module(func, *m.ctx, *m.tm);
  optimize_module(*m.module, *m.tm);
  return m;
}

void emit_machine_code(OptimizedModule& m, llvm::raw_pwrite_stream& os, llvm::CodeGenFileType type) {
  llvm::legacy::PassManager pm;
  internal_check(!m.tm->addPassesToEmitFile(pm, os, nullptr, type), "the target cannot emit this file type");
  pm.run(*m.module);
}

}  // namespace

std::string emit_llvm_ir(const lower::LoweredFunc& func, const target::Target& target) {
  OptimizedModule m = build_optimized(func, target);
  std::string text;
  llvm::raw_string_ostream os(text);
  m.module->print(os, nullptr);
  return os.str();
}

std::string emit_assembly(const lower::LoweredFunc& func, const target::Target& target) {
  OptimizedModule m = build_optimized(func, target);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  emit_machine_code(m, os, llvm::CodeGenFileType::AssemblyFile);
  return std::string(text.str());
}

void emit_object_file(const lower::LoweredFunc& func, const target::Target& target, const std::string& path) {
  OptimizedModule m = build_optimized(func, target);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) system_fail("cannot write an object file", "open", path, ec.message());
  emit_machine_code(m, os, llvm::CodeGenFileType::ObjectFile);
  os.close();
  if (os.has_error()) {
    const std::string reason = os.error().message();
    os.clear_error();  // else its destructor ends the process ("LLVM ERROR: IO failure")
    system_fail("cannot write an object file", "write", path, reason);
  }
}

}  // namespace tunectl::codegen
