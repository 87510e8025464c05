// Analytic cost of a lowered CPU program on a target (`tune --search
// construct --target llvm`; construct.h), read off its feature rows
// (features.h) so that it costs nothing beyond what every candidate already
// computes. Per statement, a roofline on one core, then the parallel loop:
//   compute  its float ops (a division 4, a math call 10) and guard ops at
//            a quarter, over two vector FMA pipes of the lanes the
//            vector loop fills in whole registers (24 elements on 16 lanes:
//            12 each; scalar outside a vectorized loop, and in one that
//            walks memory with a stride, a gather, or holds a guard: one
//            load per lane; a small stride s: s loads and s - 1 shuffles
//            for each load issued, features.h load_share), at an assumed
//            3 GHz; where no loop is vectorized, the loop LLVM's vectorizer
//            takes (features.h, auto_vector_extent) counts as one; a
//            vector accumulation with fewer accumulator registers than FMA
//            latency x pipes (4 x 2) waits on its own results, one with
//            more than the registers hold (28 of AVX-512's 32) or kept in
//            memory (accumulator_in_memory) spills, and one beside the
//            loads an unrolled sliding window keeps (window_registers)
//            spills in proportion to the registers it lacks
//   integer  beside it, on 4 integer ALUs, once per vector: index ops at
//            0.4 of a slot (most are hoisted or strength-reduced) and those
//            that stay in the innermost loops (inner_int_ops) at one; the
//            larger of the two bounds the loop
//   L1       a buffer whose cache lines are used again only after more
//            than the L1 holds has passed through, or after more lines of
//            one set than its 8 ways, brings them back from the L2 on
//            every pass of the innermost loop (a line a cycle); and what
//            the working sets bring into the L1 (l1_traffic) at 32 bytes a
//            cycle
//   memory   what they bring into the L2 (l2_traffic, features.h) at 20
//            GB/s per core and no more than 4x that; half of the smaller of
//            compute and memory adds to the larger (the prefetchers hide
//            the rest)
//   parallel min(parallel extent, cores) times the balance of its chunks
// A program whose unrolled loop bodies add up to more than 16K instructions
// (code LLVM takes minutes to compile, and no instruction cache holds) costs
// +inf. The estimate ranks programs of one task; it is no measurement.
#pragma once

#include <vector>

#include "target/target.h"

namespace tunectl::search {

double estimate_cpu_seconds(const std::vector<std::vector<float>>& feature_rows, const target::Target& target);

}  // namespace tunectl::search
