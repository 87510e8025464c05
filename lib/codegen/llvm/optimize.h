// Private to lib/codegen/llvm: the O3 pipeline of LLVM's new pass manager,
// run on a freshly built module before it is JIT-compiled or emitted. The
// target machine's TargetIRAnalysis tells the loop and SLP vectorizers which
// vector registers (AVX-512) and costs the host has.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunectl::codegen {

void optimize_module(llvm::Module& module, llvm::TargetMachine& tm);

}  // namespace tunectl::codegen
