// Target: what code is generated for, and the facts about it that schedules
// depend on. One value, parsed once from a TVM-style string at the command
// line, reaches every stage (DESIGN.md "Lowering and code generation"): the
// sketch rules and annotation read its facts, the backend (lib/backend) builds
// for its CPU and features, and every log record and kernels manifest carries
// its canonical string, by which best records are looked up.
//
// Strings:
//   llvm                         the host CPU, as the host reports it
//   llvm -mcpu=znver4            a named LLVM CPU, with that CPU's features
//   llvm -mcpu=x86-64-v3         (AVX2 and FMA, no AVX-512)
//   llvm -mattr=+avx2,+fma       the host CPU name with features added or removed
//   cuda                         the GPU of this machine (sm_90 when it has none)
//   cuda -arch=sm_80             an NVIDIA architecture: sm_80, sm_86, sm_89, sm_90
// parse_target_string checks the syntax only; the backend of the kind resolves
// the rest (backend::resolve_target): the CPU's features, since only LLVM
// knows them, and the GPU's facts, from the device or from gpu_arch.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "target/gpu_arch.h"

namespace tunectl::target {

// Every kind of target, in one place (STYLE.md habit 3).
#define TUNECTL_TARGET_KINDS(X) X(Llvm, "llvm") X(Cuda, "cuda")

enum class TargetKind : uint8_t {
#define TUNECTL_TARGET_KIND_ENUM(name, text) name,
  TUNECTL_TARGET_KINDS(TUNECTL_TARGET_KIND_ENUM)
#undef TUNECTL_TARGET_KIND_ENUM
};
const char* to_string(TargetKind kind);

// What a target string says, before the backend resolves it.
struct TargetSpec {
  TargetKind kind = TargetKind::Llvm;
  std::string cpu;                 // "" = the host's
  std::vector<std::string> mattr;  // "+avx2", "-avx512f", in the order given
  std::string arch;                // cuda: "sm_90"; "" = the device's
};

// UserError naming the part of `text` it cannot read.
TargetSpec parse_target_string(const std::string& text);

struct Target {
  TargetKind kind = TargetKind::Llvm;
  std::string triple;               // "x86_64-pc-linux-gnu"
  std::string cpu;                  // LLVM CPU name, never empty once resolved
  // Features on top of (or removed from) the CPU's own, sorted: the host's
  // differences from its CPU name's table, or the user's -mattr.
  std::vector<std::string> mattr;
  // Every instruction-set feature the generated code may use, sorted
  // ("avx2", "avx512f", "fma", ...): what a machine must have to run it.
  std::vector<std::string> features;

  // Facts the search reads. The machine that measures is this one, so the
  // core count and cache sizes are the host's whatever the CPU name says.
  int vector_lanes = 4;             // fp32 lanes of the widest vector register
  int vector_registers = 16;        // architectural vector registers (x86-64: 32 with AVX-512)
  // A vector load whose lanes are up to this many elements apart is that
  // many contiguous loads and a shuffle (codegen/llvm); beyond, a gather.
  static constexpr int64_t kMaxShuffledLoadStride = 4;
  int cores = 1;                    // cores available to this process
  int64_t l1d_bytes = 32 << 10;     // data cache per core
  int64_t l2_bytes = 1 << 20;       // per core
  int64_t l3_bytes = 32 << 20;      // shared

  // cuda: the GPU's facts (its arch is also the one entry of `features`).
  GpuFacts gpu;

  // The canonical string: "llvm -mcpu=znver4", "llvm -mcpu=x86-64 -mattr=+avx2,+fma",
  // "cuda -arch=sm_90".
  // Logs and manifests store it; two targets are the same when it is.
  std::string str() const;
  bool has_feature(const std::string& feature) const;
};

// Host facts that do not depend on the instruction set (cores, caches).
void fill_host_facts(Target& target);

// The cores available to this process (its CPU affinity), at least 1.
int host_cores();

}  // namespace tunectl::target
