// A CPU target whose code this machine cannot run, for the tests of its
// refusal: Sapphire Rapids, whose AVX512-FP16 no AMD CPU has, or, on an
// Intel CPU that has it, Zen 5, whose AVX512-VP2INTERSECT Intel's server
// CPUs lack. scripts/cpu_targets.sh picks the same for the CLI tests.
#pragma once

#include <optional>
#include <string>

#include "backend/backend.h"

namespace tunectl::testing {

struct ForeignCpu {
  std::string target;
  std::string lacked_feature;  // one feature the refusal names
};

// nullopt where this machine runs both.
inline std::optional<ForeignCpu> foreign_cpu() {
  for (const ForeignCpu& cpu : {ForeignCpu{"llvm -mcpu=sapphirerapids", "avx512fp16"},
                                ForeignCpu{"llvm -mcpu=znver5", "avx512vp2intersect"}})
    if (backend::make_backend(backend::resolve_target(cpu.target))->why_not_here()) return cpu;
  return std::nullopt;
}

}  // namespace tunectl::testing
