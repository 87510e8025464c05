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
// Issue slots of an integer index op on the integer ALUs (4 on Zen 4 and
// on Intel cores), and of a guard's op against a float op.
constexpr double kIndexOpWeight = 0.4;
constexpr double kGuardOpWeight = 0.25;
constexpr double kIntegerAlus = 4;
// Cycles before an FMA's result feeds the next one (4 on Zen 4, Ice Lake
// and later): an accumulation needs latency x pipes independent chains to
// keep both pipes busy.
constexpr double kFmaLatencyCycles = 4;
// An accumulator tile beyond the registers is loaded and stored around every
// FMA: light ResNet-50's 3x3 convolutions constructed with 48-vector tiles
// ran 4x slower than with 24.
constexpr double kSpilledAccumulatorFactor = 2;
// The share of the vector registers an accumulator tile may take, the rest
// left to the operands and to LLVM: 28 of AVX-512's 32 (an 8 x 48 matmul
// tile of 24 and a 28-column convolution tile ran as fast as 14 columns;
// 56 columns at 2.4x the time). A sliding window LLVM unrolls
// (features.h, window_registers) holds its loads in registers too.
constexpr double kAccumulatorRegisterShare = 0.875;
// A 64-byte line brought from the L2 into the L1 again (the L2 moves about
// a line a cycle into the L1; a miss the hardware prefetcher did not
// foresee also stalls).
constexpr double kL1RefillCycles = 1;
// Lines of one L1 set it holds at once (Zen 4: 8; Intel since Ice Lake: 12):
// a matmul tile of 16 rows of a 1024-wide matrix (4 KiB apart) evicts its
// own lines, and ran at half the speed of one of 3 rows.
constexpr double kL1Ways = 8;
// Bytes a core's L2 moves into its L1 per cycle, sustained (64 at best).
constexpr double kL2BytesPerCycle = 32;
constexpr double kCoreBytesPerSecond = 20e9;
constexpr double kUnhiddenMemoryShare = 0.5;
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
                      select = column("float_select"), int_ops = column("int_ops"),
                      inner_int = column("inner_int_ops"), guards = column("guard_ops"),
                      vec_len = column("vec_len"), parallel = column("parallel_product"),
                      unroll = column("unroll_product"), num_buffers = column("num_buffers"),
                      exec = column("exec_product"), update = column("is_update"), inner = column("innermost_extent"),
                      auto_vec = column("auto_vector_extent"), window = column("window_registers"),
                      in_memory = column("accumulator_in_memory"), unrolled = column("unrolled_accumulators"),
                      b0_bytes = column("b0_bytes");
  const size_t per_buffer = column("b1_bytes") - b0_bytes;
  const size_t stride = column("b0_stride") - b0_bytes, reuse_distance = column("b0_reuse_distance") - b0_bytes,
               is_write = column("b0_is_write") - b0_bytes,
               lines = column("b0_lines") - b0_bytes, line_reuse = column("b0_line_reuse_distance") - b0_bytes,
               set_conflicts = column("b0_set_conflict_lines") - b0_bytes,
               l1_traffic = column("b0_l1_traffic") - b0_bytes, l2_traffic = column("b0_l2_traffic") - b0_bytes,
               load_share = column("b0_load_share") - b0_bytes;
  // Vector registers an accumulator tile may hold (of AVX-512's 32, 28).
  const double accumulator_registers = kAccumulatorRegisterShare * target.vector_registers;
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
    // shuffles them (s loads and s - 1 shuffles), for each load the
    // statement issues (features.h, load_share): one stride-2 channel of a
    // 7x7 stem ran at 3.5 ms, four unrolled beside the row at 1.45.
    bool gathers = false;
    double shuffled = 0;
    for (size_t b : buffers) {
      const double s = value(b + stride);
      if (s > target::Target::kMaxShuffledLoadStride) gathers = true;
      if (s > 1 && s <= target::Target::kMaxShuffledLoadStride) shuffled += (2 * s - 1) * value(b + load_share);
    }
    // Where no loop is vectorized, LLVM's loop vectorizer may take one
    // (features.h, auto_vector_extent): a max pool's channel loop around
    // its unrolled window runs at full width, while the same loop unrolled
    // stays scalar (light ResNet-50's 3x3 pool: 0.075 against 0.37-0.61
    // ms). The strides above are those of the innermost loop: they apply
    // when LLVM's loop is that one; around a window, where no load gathers
    // along LLVM's loop (features.h), its loads are taken as contiguous.
    // A guard tested for every element (inside the vector loop: a
    // non-dividing tile) has at least one op per execution; one outside
    // (a parallel loop partitioned into its main part and its tail, tested
    // once per chunk) leaves the loops inside it as they are: such a
    // program of light SqueezeNet was rated scalar at 10 ms and ran in 0.056.
    const bool guard_per_element = value(guards) >= runs;
    const double auto_vector = value(vec_len) < 0.5 && !guard_per_element ? std::round(value(auto_vec)) : 0;
    if (auto_vector > 1 && std::round(value(inner)) != auto_vector) gathers = false, shuffled = 0;
    // A vector loop runs in whole registers: 24 elements on 16 lanes take
    // two, 12 lanes each.
    // Rounded: log2(1 + 16) as a float decodes to 16.0000007, which would
    // take two registers.
    const double vector = std::max(1.0, auto_vector > 1 ? auto_vector : std::round(value(vec_len)));
    double lanes = vector / std::ceil(vector / static_cast<double>(std::max(1, target.vector_lanes)));
    double flops = value(add) + value(mul) + 4 * value(div) + value(min_max) + 10 * value(math) + value(cmp) +
                   value(select) + runs * shuffled;
    // A guard inside it keeps it scalar too.
    if ((gathers || guard_per_element) && lanes > 1) {
      flops += runs * static_cast<double>(buffers.size());
      lanes = 1;
    }
    // Integer work runs on the integer ALUs beside the FMA pipes, once per
    // vector: it bounds the loop only where it outweighs the float work.
    // Index arithmetic mostly leaves the loop (hoisted, or strength-reduced
    // to pointer steps), a fraction of a slot each; what moves with the
    // innermost loops and cannot be reduced (features.h, inner_int_ops)
    // stays, a slot each.
    double compute_s = (flops + kGuardOpWeight * value(guards)) / (lanes * kFmaPipes * kClockHz);
    compute_s = std::max(compute_s, (kIndexOpWeight * value(int_ops) + value(inner_int)) /
                                        (lanes * kIntegerAlus * kClockHz));
    // An accumulation waits on its own last result: the accumulator's
    // elements updated between two updates of one (its reuse distance) are
    // the independent chains, in registers of `lanes`. One accumulator
    // register inside the reduction loop runs at an eighth of the pipes'
    // rate; 8 to 28 of them (a register tile) keep both busy. A loop LLVM's
    // vectorizer takes is left alone: a scalar reduction it splits into
    // interleaved vectors, and a short window unrolled inside a loop it
    // vectorizes, whose outputs are independent chains the core overlaps.
    if (value(update) > 0 && auto_vector <= 1) {
      for (size_t b : buffers) {
        if (value(b + is_write) == 0) continue;
        // The unrolled block's accumulators are chains too, in any order
        // (features.h, unrolled_accumulators).
        const double chains = std::max(std::max(1.0, std::round(value(b + reuse_distance))) / lanes,
                                       std::round(value(unrolled)));
        compute_s *= std::max(1.0, kFmaLatencyCycles * kFmaPipes / chains);
        // An accumulator whose innermost kept loop moves it is loaded and
        // stored around its updates in the unrolled block inside (features.h,
        // accumulator_in_memory): the load and store shared by that many.
        // A window beyond the registers spills in proportion to what does
        // not fit: a 7x7 stem's 28 accumulators with a window of 13 moved 38
        // vectors to the stack and were the fastest stem of their log; a
        // 24-column tile with a window of 26 moved 353 and ran at 1.5-4x.
        const double excess = chains + value(window) - target.vector_registers;
        if (chains > accumulator_registers)
          compute_s *= kSpilledAccumulatorFactor;
        else if (value(in_memory) > 0)
          compute_s *= 1 + (kSpilledAccumulatorFactor - 1) / std::max(1.0, std::round(value(in_memory)));
        else if (excess > 0)
          compute_s *= 1 + (kSpilledAccumulatorFactor - 1) * std::min(1.0, excess / chains);
      }
    }
    // The L1: a buffer whose lines are used again only after more than the
    // L1 holds has passed through (line reuse distance x 4 bytes x the
    // statement's buffers), or more lines of one set than it has ways,
    // brings the lines it touches back from the L2 on every pass of the
    // innermost loop: a convolution whose input channels within a block are
    // the outer reduction loop reloads each input line once per channel.
    const double passes = runs / std::max(1.0, std::round(value(inner)));
    for (size_t b : buffers) {
      const double between_uses = std::round(value(b + line_reuse)) * 4 * static_cast<double>(buffers.size());
      if (between_uses > static_cast<double>(target.l1d_bytes) || std::round(value(b + set_conflicts)) > kL1Ways)
        compute_s += kL1RefillCycles * passes * value(b + lines) / kClockHz;
    }
    // What the statement's working sets bring into a core's L1 (from the
    // L2) and into its L2 (from the L3 or memory): features.h, l1_traffic
    // and l2_traffic.
    double l1_traffic_bytes = 0, l2_traffic_bytes = 0;
    for (size_t b : buffers) {
      l1_traffic_bytes += value(b + l1_traffic);
      l2_traffic_bytes += value(b + l2_traffic);
    }
    compute_s += l1_traffic_bytes / (kL2BytesPerCycle * kClockHz);
    // Unrolled code beyond what compiles in reasonable time (and fits the
    // instruction cache) is no candidate.
    const double per_run = (flops + value(int_ops)) / runs + value(num_buffers);
    code += std::max(1.0, value(unroll)) * per_run / lanes;
    if (code > kMaxUnrolledInstructions) return std::numeric_limits<double>::infinity();
    const double p = std::max(1.0, std::round(value(parallel)));  // rounded as vec_len is
    const double cores = std::min(p, static_cast<double>(std::max(1, target.cores)));
    const double balance = p / (std::ceil(p / cores) * cores);
    const double memory_s = l2_traffic_bytes / (kCoreBytesPerSecond * std::min(cores, kMaxBandwidthCores));
    // The prefetchers hide part of the memory time behind the compute, not
    // all: 1024^3 matmuls that stream their B panel (rows 4 KiB apart) from
    // the L3 for every row block ran at 1.3-1.8x the time of one that packs
    // it, with compute to spare.
    const double core_s = compute_s / (cores * balance);
    total += std::max(core_s, memory_s) + kUnhiddenMemoryShare * std::min(core_s, memory_s);
  }
  return total;
}

}  // namespace tunectl::search
