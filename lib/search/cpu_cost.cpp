// The analytic CPU cost (cpu_cost.h) from feature rows.
#include "search/cpu_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ir/error.h"
#include "search/features.h"

namespace tunectl::search {

namespace {

constexpr double kClockHz = 3e9;
constexpr double kFmaPipes = 2;
constexpr double kCoreBytesPerSecond = 20e9;
constexpr double kMaxBandwidthCores = 4;
constexpr double kMaxUnrolledInstructions = 1 << 14;

size_t column(const std::string& name) {
  const std::vector<std::string>& names = feature_names();
  const auto it = std::find(names.begin(), names.end(), name);
  internal_check(it != names.end(), "no feature column ", name);
  return static_cast<size_t>(it - names.begin());
}

}  // namespace

double estimate_cpu_seconds(const std::vector<std::vector<float>>& feature_rows, const target::Target& target) {
  static const size_t add = column("float_add_sub"), mul = column("float_mul"), div = column("float_div"),
                      min_max = column("float_min_max"), math = column("float_math"), cmp = column("float_cmp"),
                      select = column("float_select"), int_ops = column("int_ops"), guards = column("guard_ops"),
                      vec_len = column("vec_len"), parallel = column("parallel_product"),
                      unroll = column("unroll_product"), num_buffers = column("num_buffers"),
                      exec = column("exec_product"), b0_bytes = column("b0_bytes");
  const size_t per_buffer = column("b1_bytes") - b0_bytes;
  const size_t stride = column("b0_stride") - b0_bytes, reuse_distance = column("b0_reuse_distance") - b0_bytes,
               reuse_count = column("b0_reuse_count") - b0_bytes;
  double total = 0;
  double code = 0;  // instructions of the unrolled loop bodies
  for (const std::vector<float>& row : feature_rows) {
    auto value = [&](size_t c) { return std::exp2(static_cast<double>(row[c])) - 1; };
    std::vector<size_t> buffers;
    for (size_t b = b0_bytes; b + per_buffer <= row.size() && buffers.size() < 5; b += per_buffer)
      if (value(b) > 0) buffers.push_back(b);
    const double runs = std::max(1.0, value(exec));
    // A vector loop that steps through memory with a stride gathers (one
    // load per lane), or for a small stride loads that many vectors and
    // shuffles them.
    bool gathers = false;
    double shuffled = 0;
    for (size_t b : buffers) {
      const double s = value(b + stride);
      if (s > target::Target::kMaxShuffledLoadStride) gathers = true;
      if (s > 1 && s <= target::Target::kMaxShuffledLoadStride) shuffled += s;
    }
    // A vector loop runs in whole registers: 24 elements on 16 lanes take
    // two, 12 lanes each.
    const double vector = std::max(1.0, value(vec_len));
    double lanes = vector / std::ceil(vector / static_cast<double>(std::max(1, target.vector_lanes)));
    double flops = value(add) + value(mul) + 4 * value(div) + value(min_max) + 10 * value(math) + value(cmp) +
                   value(select) + runs * shuffled;
    // A guard inside it (a non-dividing tile) keeps it scalar too.
    if ((gathers || value(guards) > 0) && lanes > 1) {
      flops += runs * static_cast<double>(buffers.size());
      lanes = 1;
    }
    const double compute_s = (flops + 0.25 * (value(int_ops) + value(guards))) / (lanes * kFmaPipes * kClockHz);
    // Each buffer's traffic: its footprint while what runs between two uses
    // of an element fits the L2; beyond, every use reloads the lines it
    // touches (a strided walk a whole line per element).
    double traffic = 0;
    for (size_t b : buffers) {
      const double between_uses = value(b + reuse_distance) * 4 * static_cast<double>(buffers.size());
      if (between_uses <= static_cast<double>(target.l2_bytes)) {
        traffic += value(b);
      } else if (value(b + stride) == 0) {
        traffic += value(b) * std::max(1.0, value(b + reuse_count));
      } else {
        traffic += runs * std::min(64.0, 4 * value(b + stride));
      }
    }
    // Unrolled code beyond what compiles in reasonable time (and fits the
    // instruction cache) is no candidate.
    const double per_run = (flops + value(int_ops)) / runs + value(num_buffers);
    code += std::max(1.0, value(unroll)) * per_run / lanes;
    if (code > kMaxUnrolledInstructions) return std::numeric_limits<double>::infinity();
    const double p = std::max(1.0, value(parallel));
    const double cores = std::min(p, static_cast<double>(std::max(1, target.cores)));
    const double balance = p / (std::ceil(p / cores) * cores);
    const double memory_s = traffic / (kCoreBytesPerSecond * std::min(cores, kMaxBandwidthCores));
    total += std::max(compute_s / (cores * balance), memory_s);
  }
  return total;
}

}  // namespace tunectl::search
