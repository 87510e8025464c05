#include "codegen/cuda/cuda_codegen.h"

#include "codegen/cuda/cuda_source.h"
#include "ir/error.h"

namespace tunectl::codegen::cuda {

namespace {

const KernelResources& resources_of(const CudaBinary& b, const std::string& name) {
  const auto it = b.compiled.resources.find(name);
  // (NVRTC leaves the report out in a process where cuInit succeeded;
  // compile_process.h compiles where no device is visible.)
  user_check(it != b.compiled.resources.end(), "NVRTC gave no ptxas report for kernel ", name, " (compiler log: '",
             b.compiled.log, "')");
  return it->second;
}

bool spills(const KernelResources& r) { return r.spill_store_bytes > 0 || r.spill_load_bytes > 0; }

}  // namespace

CudaBinary compile_cuda(const lower::LoweredFunc& func, const target::Target& target) {
  CudaBinary out;
  out.source = cuda_source(func);
  out.launch = lower::launch_dims(func);
  out.compiled = nvrtc_compile(out.source, func.name, target.gpu.arch);
  // The occupancy hint caps a double-buffered kernel's registers; where
  // that spills, more registers and fewer blocks per SM beat local memory.
  if (spills(resources_of(out, func.name)) && !func.double_buffered.empty()) {
    out.source = cuda_source(func, /*occupancy_hint=*/false);
    out.compiled = nvrtc_compile(out.source, func.name, target.gpu.arch);
  }
  const KernelResources& r = resources_of(out, func.name);
  user_check(!spills(r), "kernel ", func.name, " spills registers (",
             r.spill_store_bytes, " bytes stored, ", r.spill_load_bytes, " bytes loaded) on ", target.str());
  const int64_t registers = static_cast<int64_t>(r.registers) * out.launch.threads_per_block();
  user_check(registers <= target.gpu.registers_per_sm, "kernel ", func.name, " needs ", registers,
             " registers per block (", r.registers, " x ", out.launch.threads_per_block(), " threads), more than ",
             target.str(), " has per SM (", target.gpu.registers_per_sm, ")");
  return out;
}

std::string resources_report(const CompiledCuda& compiled) {
  std::string out;
  for (const auto& [name, r] : compiled.resources) {
    out += name + ": " + std::to_string(r.registers) + " registers, " +
           std::to_string(r.spill_store_bytes + r.spill_load_bytes) + " bytes spilled, " +
           std::to_string(r.shared_bytes) + " bytes shared, " + std::to_string(r.stack_bytes) + " bytes stack\n";
  }
  return out;
}

}  // namespace tunectl::codegen::cuda
