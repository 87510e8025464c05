// Private to lib/codegen/llvm: turns a LoweredFunc into an LLVM module for a
// target machine (the first step of jit_compile, emit_llvm_ir, emit_assembly
// and emit_object_file). The module holds one external function
// `void name(void* const* args)`, one more per input packing, plus internal
// outlined parallel bodies, and is verified before it is returned. LLVM types
// are forward-declared only.
#pragma once

#include <memory>

#include "lower/lower.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunectl::codegen {

std::unique_ptr<llvm::Module> build_module(const lower::LoweredFunc& func, llvm::LLVMContext& ctx,
                                           const llvm::TargetMachine& tm);

}  // namespace tunectl::codegen
