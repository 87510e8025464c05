// Resolving a target spec with LLVM's CPU tables. A CPU's features are what
// LLVM's subtarget info enables for its name plus -mattr; Target::features
// lists the instruction-set features (those the host detection reports, not
// tuning flags such as "slow-3ops-lea") that generated kernels can contain,
// since those are what a machine must have to run them. System instructions
// (below) are left out: kernels never use them, and virtual machines often
// hide them, which would refuse a folder that runs perfectly well.
#include "codegen/llvm/target.h"

#include <algorithm>
#include <mutex>

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include "codegen/llvm/llvm_codegen.h"
#include "ir/error.h"

namespace tunectl::codegen {
namespace {

const llvm::Target& llvm_target(const std::string& triple) {
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  internal_check(t != nullptr, "no LLVM target for ", triple, ": ", error);
  return *t;
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : ",") + w;
  return s;
}

// The instruction-set features of this machine, as the host reports them.
const llvm::StringMap<bool>& host_features() {
  static const llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  return features;
}

bool is_system_feature(llvm::StringRef name) {
  static const char* const system[] = {
      "cldemote", "clzero",   "enqcmd", "fsgsbase", "hreset",  "invpcid", "kl",      "lwp",    "monitor",
      "movdir64b", "movdiri", "mwaitx", "pconfig",  "pku",     "ptwrite", "rdpid",   "rdpru",  "rdrnd",
      "rdseed",   "rtm",      "serialize", "sgx",   "shstk",   "tsxldtrk", "uintr",  "waitpkg", "wbnoinvd",
      "widekl",   "xsave",    "xsavec", "xsaveopt", "xsaves",  "prefetchi"};
  return std::find(std::begin(system), std::end(system), name) != std::end(system);
}

// A feature that decides whether generated kernels run on a machine.
bool is_kernel_feature(llvm::StringRef name) { return host_features().count(name) && !is_system_feature(name); }

// The instruction-set features LLVM enables for cpu with mattr applied, sorted.
std::vector<std::string> enabled_features(const std::string& triple, const std::string& cpu,
                                          const std::vector<std::string>& mattr) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti(llvm_target(triple).createMCSubtargetInfo(triple, cpu, join(mattr)));
  internal_check(sti != nullptr, "no subtarget info for ", triple, " ", cpu);
  std::vector<std::string> features;
  for (const llvm::SubtargetFeatureKV& kv : sti->getAllProcessorFeatures()) {
    if (sti->getFeatureBits().test(kv.Value) && is_kernel_feature(kv.Key)) features.push_back(kv.Key);
  }
  std::sort(features.begin(), features.end());
  return features;
}

// Checks the CPU name and feature names against LLVM's tables, so that a
// typo is a UserError rather than a warning LLVM prints and ignores.
void check_names(const std::string& triple, const target::TargetSpec& spec, const std::string& text) {
  std::unique_ptr<llvm::MCSubtargetInfo> generic(llvm_target(triple).createMCSubtargetInfo(triple, "", ""));
  if (!spec.cpu.empty()) {
    user_check(generic->isCPUStringValid(spec.cpu), "target '", text, "': LLVM knows no CPU named '", spec.cpu,
               "' (e.g. znver4, skylake-avx512, x86-64-v3)");
  }
  for (const std::string& f : spec.mattr) {
    const std::string name = f.substr(1);
    const auto& all = generic->getAllProcessorFeatures();
    user_check(std::any_of(all.begin(), all.end(), [&](const llvm::SubtargetFeatureKV& kv) { return name == kv.Key; }),
               "target '", text, "': LLVM knows no feature named '", name, "'");
  }
}

int fp32_vector_lanes(const target::Target& t) {
  if (t.has_feature("avx512f")) return 16;
  if (t.has_feature("avx")) return 8;
  if (t.has_feature("sse")) return 4;
  return 1;
}

}  // namespace

void init_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

target::Target resolve_cpu_target(const target::TargetSpec& spec, const std::string& text) {
  init_native_target();
  target::Target t;
  t.kind = spec.kind;
  t.triple = llvm::sys::getProcessTriple();
  check_names(t.triple, spec, text);
  if (spec.cpu.empty() && spec.mattr.empty()) {
    // The host: its CPU name, plus -mattr for where the host's features
    // differ from that name's table (a VM that hides AVX-512, say), so the
    // canonical string alone rebuilds the same code anywhere.
    t.cpu = llvm::sys::getHostCPUName().str();
    const std::vector<std::string> table = enabled_features(t.triple, t.cpu, {});
    for (const auto& f : host_features()) {
      if (!is_kernel_feature(f.first())) continue;
      const bool in_table = std::binary_search(table.begin(), table.end(), f.first().str());
      if (f.second != in_table) t.mattr.push_back((f.second ? "+" : "-") + f.first().str());
    }
    std::sort(t.mattr.begin(), t.mattr.end());
  } else {
    t.cpu = spec.cpu.empty() ? llvm::sys::getHostCPUName().str() : spec.cpu;
    t.mattr = spec.mattr;
  }
  t.features = enabled_features(t.triple, t.cpu, t.mattr);
  t.vector_lanes = fp32_vector_lanes(t);
  t.vector_registers = t.has_feature("avx512f") ? 32 : 16;
  target::fill_host_facts(t);
  return t;
}

std::vector<std::string> missing_host_features(const target::Target& t) {
  std::vector<std::string> missing;
  for (const std::string& f : t.features) {
    auto it = host_features().find(f);
    if (it == host_features().end() || !it->second) missing.push_back(f);
  }
  return missing;
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const target::Target& t) {
  init_native_target();
  llvm::TargetOptions options;
  // Contraction into FMA is allowed where the IR says so (fast-math flags).
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(llvm_target(t.triple).createTargetMachine(
      t.triple, t.cpu, join(t.mattr), options, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  internal_check(tm != nullptr, "cannot create a target machine for ", t.str());
  return tm;
}

}  // namespace tunectl::codegen
