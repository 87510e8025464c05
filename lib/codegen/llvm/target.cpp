#include "codegen/llvm/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include "ir/error.h"

namespace tunectl::codegen {

const HostTarget& host_target() {
  // A function-local static: initialized exactly once even when several
  // threads compile candidates at the same time.
  static const HostTarget host = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    HostTarget t;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    std::string features;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) {
      if (!features.empty()) features += ',';
      features += (f.second ? "+" : "-") + f.first().str();
    }
    t.features = features;
    return t;
  }();
  return host;
}

std::unique_ptr<llvm::TargetMachine> make_host_target_machine() {
  const HostTarget& host = host_target();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(host.triple, error);
  internal_check(target != nullptr, "no LLVM target for ", host.triple, ": ", error);
  llvm::TargetOptions options;
  // Contraction into FMA is allowed where the IR says so (fast-math flags).
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      host.triple, host.cpu, host.features, options, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  internal_check(tm != nullptr, "cannot create a target machine for ", host.triple, " ", host.cpu);
  return tm;
}

}  // namespace tunectl::codegen
