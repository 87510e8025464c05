#include "cpu_features.h"

#include <utility>

namespace tunectl::deploy_runtime {

namespace {

// __builtin_cpu_supports takes a string literal only, hence the table.
#if defined(__x86_64__)
#define TUNECTL_CPU_FEATURE(name) {name, [] { return __builtin_cpu_supports(name) != 0; }}
const std::pair<const char*, bool (*)()> kCheckedFeatures[] = {
    TUNECTL_CPU_FEATURE("sse3"),       TUNECTL_CPU_FEATURE("ssse3"),      TUNECTL_CPU_FEATURE("sse4.1"),
    TUNECTL_CPU_FEATURE("sse4.2"),     TUNECTL_CPU_FEATURE("avx"),        TUNECTL_CPU_FEATURE("avx2"),
    TUNECTL_CPU_FEATURE("fma"),        TUNECTL_CPU_FEATURE("bmi"),        TUNECTL_CPU_FEATURE("bmi2"),
    TUNECTL_CPU_FEATURE("popcnt"),     TUNECTL_CPU_FEATURE("avx512f"),    TUNECTL_CPU_FEATURE("avx512bw"),
    TUNECTL_CPU_FEATURE("avx512dq"),   TUNECTL_CPU_FEATURE("avx512vl"),   TUNECTL_CPU_FEATURE("avx512cd"),
    TUNECTL_CPU_FEATURE("avx512vnni"), TUNECTL_CPU_FEATURE("avx512bf16"), TUNECTL_CPU_FEATURE("avx512vbmi"),
    TUNECTL_CPU_FEATURE("avx512vbmi2"), TUNECTL_CPU_FEATURE("avx512ifma"), TUNECTL_CPU_FEATURE("avx512bitalg"),
    TUNECTL_CPU_FEATURE("avx512vpopcntdq"), TUNECTL_CPU_FEATURE("avx512fp16"), TUNECTL_CPU_FEATURE("avx512vp2intersect"),
    TUNECTL_CPU_FEATURE("sse4a"),
};
#undef TUNECTL_CPU_FEATURE
#else
const std::pair<const char*, bool (*)()> kCheckedFeatures[] = {{"", nullptr}};
#endif

}  // namespace

std::vector<std::string> missing_cpu_features(const std::vector<std::string>& wanted) {
  std::vector<std::string> missing;
  for (const std::string& feature : wanted)
    for (const auto& [name, present] : kCheckedFeatures)
      if (present && feature == name && !present()) missing.push_back(feature);
  return missing;
}

}  // namespace tunectl::deploy_runtime
