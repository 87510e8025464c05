// Private to lib/codegen/llvm: a target::Target as an LLVM target machine.
// Every module is compiled for the target's CPU name and -mattr features,
// never for the host's unless the target is the host.
#pragma once

#include <memory>

#include "target/target.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace tunectl::codegen {

// Initializes the native LLVM target once (thread-safe).
void init_native_target();

// A new target machine at -O3 (one per compilation: a TargetMachine is not
// safe to share between threads that emit code).
std::unique_ptr<llvm::TargetMachine> make_target_machine(const target::Target& target);

}  // namespace tunectl::codegen
