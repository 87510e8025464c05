#include "tune/constant_footprint.h"

#include <cstdio>

namespace tunectl::tune {

std::string ConstantFootprint::describe() const {
  constexpr double kMiB = 1 << 20;
  char text[160];
  std::snprintf(text, sizeof(text), "%.1f MiB of constants %s %.0f MiB L3: %s", bytes / kMiB,
                exceeds_cache() ? ">" : "<=", l3_bytes / kMiB,
                exceeds_cache() ? "evicted before each timed call" : "left in the caches");
  return text;
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
