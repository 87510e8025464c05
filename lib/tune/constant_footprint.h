// How much of a model's constants (weights, in every subgraph a task stands
// for) there is against the host's last-level cache, which decides how the
// tuner times CPU candidates (measure::MeasureOptions::flush_cache). Where
// the constants exceed the L3, every run of the model brings each kernel's
// weights back from DRAM (ResNet-50: 97.6 MiB through a 32 MiB L3), so each
// timed call starts with its constants evicted: the search then prefers
// programs that stream them. Where they fit (SqueezeNet's 4.7 MiB), a
// kernel finds its weights in the L3 on every run after the first, and
// evicting them would time a cost the model never pays: retuned with
// evicted weights, light SqueezeNet ran 0.91x of ONNX Runtime against
// 0.93-0.95x for its log timed warm, in the same runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/measure.h"
#include "target/target.h"
#include "tasks/extract.h"

namespace tunectl::tune {

struct ConstantFootprint {
  int64_t bytes = 0;     // sum over tasks of weight x the bytes of the DAG's constant placeholders
  int64_t l3_bytes = 0;  // the host's last-level cache
  bool exceeds_cache() const { return bytes > l3_bytes; }
  // "97.6 MiB of constants > 32 MiB L3: evicted before each timed call",
  // or "... <= ...: left in the L3, the L2 emptied before each timed call".
  std::string describe() const;
};

ConstantFootprint constant_footprint(const std::vector<tasks::Task>& tasks, const target::Target& target);

// How the tuner times CPU candidates of these tasks, and `bench MODEL` its
// kernels alone: constants over the L3 evicted before each call
// (flush_cache); constants that fit left in the L3, with every thread's L1
// and L2 emptied before each call (evict_private_bytes: twice the L2), as
// inside a model, where the other kernels have passed through the L2 since
// a kernel last ran. Timed with the L2 warm instead, light SqueezeNet's
// Winograd convolutions (transformed weights up to 2.4 MB) ran 1.1-1.4x
// their warm time alone inside the model (the large direct ones 1.0-1.05x),
// and `auto` chose between the two by the warm times. options.flush_cache
// false (warm timing, asked for) stays so.
void set_cpu_timing(measure::MeasureOptions& options, const std::vector<tasks::Task>& tasks,
                    const target::Target& target);

}  // namespace tunectl::tune
