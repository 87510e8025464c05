#include "codegen/cuda/cuda_codegen.h"

#include "codegen/cuda/cuda_source.h"
#include "ir/error.h"

namespace tunectl::codegen::cuda {

CudaBinary compile_cuda(const lower::LoweredFunc& func, const target::Target& target) {
  CudaBinary out;
  out.source = cuda_source(func);
  out.launch = lower::launch_dims(func);
  out.compiled = nvrtc_compile(out.source, func.name, target.gpu.arch);
  const auto it = out.compiled.resources.find(func.name);
  // (NVRTC leaves the report out in a process where cuInit succeeded;
  // compile_process.h compiles where no device is visible.)
  user_check(it != out.compiled.resources.end(), "NVRTC gave no ptxas report for kernel ", func.name,
             " (compiler log: '", out.compiled.log, "')");
  const KernelResources& r = it->second;
  user_check(r.spill_store_bytes == 0 && r.spill_load_bytes == 0, "kernel ", func.name, " spills registers (",
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
