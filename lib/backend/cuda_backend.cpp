#include "backend/cuda_backend.h"

#include <fstream>

#include "codegen/cuda/cuda_codegen.h"
#include "codegen/cuda/cuda_source.h"
#include "codegen/cuda/nvrtc.h"
#include "ir/error.h"
#include "lower/launch_dims.h"
#include "lower/gpu_emulator.h"
#include "lower/interpreter.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_kernel.h"
#include "schedule/gpu_default_schedule.h"

namespace tunectl::backend {

namespace {

std::string known_archs() {
  std::string s;
  for (const std::string& a : target::known_gpu_archs()) s += (s.empty() ? "" : ", ") + a;
  return s;
}

void write_file(const std::string& path, const char* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(data, static_cast<std::streamsize>(size));
  out.close();
  system_check(static_cast<bool>(out), "cannot write the kernels folder", "write", path);
}

std::string without_suffix(const std::string& path, const std::string& suffix) {
  internal_check(path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0,
                 "cuda backend: ", path, " does not end in ", suffix);
  return path.substr(0, path.size() - suffix.size());
}

}  // namespace

target::Target resolve_cuda_target(const target::TargetSpec& spec, const std::string& text) {
  const std::optional<target::GpuFacts> device = runtime::cuda_device();
  target::Target t;
  t.kind = target::TargetKind::Cuda;
  t.triple = "nvptx64-nvidia-cuda";
  if (device && (spec.arch.empty() || spec.arch == device->arch)) {
    t.gpu = *device;
  } else {
    const std::string arch = spec.arch.empty() ? kDefaultGpuArch : spec.arch;
    std::optional<target::GpuFacts> facts = target::gpu_facts_of_arch(arch);
    user_check(facts.has_value(), "target '", text, "': unknown GPU arch '", arch, "' (known: ", known_archs(), ")");
    t.gpu = *facts;
  }
  t.cpu = t.gpu.arch;
  t.features = {t.gpu.arch};
  return t;
}

CudaBackend::CudaBackend(target::Target target) : Backend(std::move(target)) { codegen::cuda::start_nvrtc_helper(); }

std::unique_ptr<runtime::Kernel> CudaBackend::build(const lower::LoweredFunc& func) const {
  user_check(func.packings.empty(), "kernel ", func.name,
             ": prepacked constants are not run on the GPU yet (the emulator and the kernels folder take them)");
  const codegen::cuda::CudaBinary binary = codegen::cuda::compile_cuda(func, target());
  check_runs_here("running kernel " + func.name + " runs");
  std::vector<size_t> arg_bytes;
  for (const ir::Buffer& b : func.args) arg_bytes.push_back(static_cast<size_t>(b->num_bytes()));
  return std::make_unique<runtime::CudaKernel>(func.name, binary.compiled.cubin,
                                               runtime::CudaLaunch{binary.launch.grid, binary.launch.block},
                                               std::move(arg_bytes));
}

void CudaBackend::write(const lower::LoweredFunc& func, const std::string& path) const {
  const codegen::cuda::CudaBinary binary = codegen::cuda::compile_cuda(func, target());
  const std::string stem = without_suffix(path, file_suffix());
  write_file(stem + ".cu", binary.source.data(), binary.source.size());
  write_file(stem + ".ptx", binary.compiled.ptx.data(), binary.compiled.ptx.size());
  write_file(path, binary.compiled.cubin.data(), binary.compiled.cubin.size());
}

nlohmann::json CudaBackend::launch_config(const lower::LoweredFunc& func) const {
  const lower::LaunchDims dims = lower::launch_dims(func);
  return {{"grid", dims.grid}, {"block", dims.block}, {"dynamic_shared_bytes", 0}};
}

std::string CudaBackend::emit(const lower::LoweredFunc& func, const std::string& kind) const {
  if (kind == "cuda") return codegen::cuda::cuda_source(func);
  const codegen::cuda::CudaBinary binary = codegen::cuda::compile_cuda(func, target());
  if (kind == "ptx") return binary.compiled.ptx;
  if (kind == "resources") {
    const lower::LaunchDims& l = binary.launch;
    return "grid " + std::to_string(l.grid[0]) + "x" + std::to_string(l.grid[1]) + "x" + std::to_string(l.grid[2]) +
           ", block " + std::to_string(l.block[0]) + "x" + std::to_string(l.block[1]) + "x" +
           std::to_string(l.block[2]) + "\n" + codegen::cuda::resources_report(binary.compiled);
  }
  internal_fail("the cuda backend cannot emit '", kind, "'");
}

schedule::State CudaBackend::default_schedule(std::shared_ptr<const te::ComputeDAG> dag) const {
  return schedule::gpu_default_schedule(std::move(dag));
}

std::optional<std::string> CudaBackend::why_not_here() const {
  std::string why;
  const std::optional<target::GpuFacts> device = runtime::cuda_device(&why);
  if (!device) return "no CUDA driver or device was found on this machine (" + why + ")";
  if (device->arch != target().gpu.arch) return "this machine's " + device->device + " is " + device->arch;
  return std::nullopt;
}

void CudaBackend::emulate(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const {
  lower::run_with_packing(func, args, lower::emulate_gpu);
}

bool CudaBackend::emulate_sample(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args,
                                 int64_t max_blocks) const {
  lower::run_with_packing(func, args, [max_blocks](const lower::LoweredFunc& f, const std::vector<runtime::NDArray*>& a) {
    lower::emulate_gpu_blocks(f, a, max_blocks);
  });
  return true;
}

}  // namespace tunectl::backend
