#include "target/gpu_arch.h"

namespace tunectl::target {

namespace {

// One representative data-centre part per arch, from NVIDIA's data sheets
// and the CUDA C Programming Guide's table of compute capabilities.
const std::vector<GpuFacts>& table() {
  static const std::vector<GpuFacts> facts = [] {
    auto make = [](const char* arch, const char* device, int sms, int64_t l2_mib) {
      GpuFacts f;
      f.arch = arch;
      f.device = device;
      f.sm_count = sms;
      f.l2_bytes = l2_mib << 20;
      return f;
    };
    return std::vector<GpuFacts>{
        make("sm_80", "A100 SXM4", 108, 40),
        make("sm_86", "A10", 72, 6),
        make("sm_89", "L4", 58, 48),
        make("sm_90", "H100 SXM5", 132, 50),
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
