#include "tune/constant_footprint.h"

#include <cstdio>

namespace tunectl::tune {

std::string ConstantFootprint::describe() const {
  constexpr double kMiB = 1 << 20;
  char text[160];
  std::snprintf(text, sizeof(text), "%.1f MiB of constants %s %.0f MiB L3: %s", bytes / kMiB,
                exceeds_cache() ? ">" : "<=", l3_bytes / kMiB,
                exceeds_cache() ? "evicted before each timed call" : "left in the L3, the L2 emptied before each timed call");
  return text;
}

void set_cpu_timing(measure::MeasureOptions& options, const std::vector<tasks::Task>& tasks,
                    const target::Target& target) {
  if (!options.flush_cache) return;
  options.flush_cache = constant_footprint(tasks, target).exceeds_cache();
  options.evict_private_bytes = options.flush_cache ? 0 : 2 * target.l2_bytes;
}

ConstantFootprint constant_footprint(const std::vector<tasks::Task>& tasks, const target::Target& target) {
  ConstantFootprint f;
  f.l3_bytes = target.l3_bytes;
  for (const tasks::Task& task : tasks) {
    for (const te::Tensor& p : task.dag->placeholders()) {
      if (p->constant) f.bytes += task.weight * p->buffer->num_bytes();
    }
  }
  return f;
}

}  // namespace tunectl::tune
