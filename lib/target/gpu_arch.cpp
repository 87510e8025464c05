#include "target/gpu_arch.h"

namespace tunectl::target {

namespace {

// One representative data-centre part per arch, from NVIDIA's data sheets
// and the CUDA C Programming Guide's table of compute capabilities.
const std::vector<GpuFacts>& table() {
  static const std::vector<GpuFacts> facts = [] {
    auto make = [](const char* arch, const char* device, int sms, int64_t l2_mib, int lanes, double ghz,
                   double dram, int threads_per_sm, int64_t shared_kib_per_sm) {
      GpuFacts f;
      f.arch = arch;
      f.device = device;
      f.sm_count = sms;
      f.l2_bytes = l2_mib << 20;
      f.fp32_lanes_per_sm = lanes;
      f.clock_ghz = ghz;
      f.dram_gbytes_per_s = dram;
      f.max_threads_per_sm = threads_per_sm;
      f.shared_bytes_per_sm = shared_kib_per_sm << 10;
      return f;
    };
    return std::vector<GpuFacts>{
        make("sm_80", "A100 SXM4", 108, 40, 64, 1.41, 1555, 2048, 164),
        make("sm_86", "A10", 72, 6, 128, 1.695, 600, 1536, 100),
        make("sm_89", "L4", 58, 48, 128, 2.04, 300, 1536, 100),
        make("sm_90", "H100 SXM5", 132, 50, 128, 1.98, 3350, 2048, 228),
    };
  }();
  return facts;
}

}  // namespace

std::optional<GpuFacts> gpu_facts_of_arch(const std::string& arch) {
  for (const GpuFacts& f : table())
    if (f.arch == arch) return f;
  return std::nullopt;
}

std::vector<std::string> known_gpu_archs() {
  std::vector<std::string> archs;
  for (const GpuFacts& f : table()) archs.push_back(f.arch);
  return archs;
}

}  // namespace tunectl::target
