// Private to lib/codegen/llvm: the host CPU as an LLVM target. Every module
// tunectl builds is compiled for the machine it runs on (name and features
// from the host, AVX-512 on the reference machine).
#pragma once

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace tunectl::codegen {

struct HostTarget {
  std::string triple;
  std::string cpu;
  std::string features;  // "+avx512f,+fma,-..." as LLVM spells them
};

// Initializes the native LLVM target once (thread-safe) and describes the host.
const HostTarget& host_target();

// A new target machine for the host at -O3 (one per compilation: a
// TargetMachine is not safe to share between threads that emit code).
std::unique_ptr<llvm::TargetMachine> make_host_target_machine();

}  // namespace tunectl::codegen
