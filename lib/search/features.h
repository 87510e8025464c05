// Program features for the learned cost model: lowered loop IR -> one row of
// numbers per Store. Search lowers each candidate State (lower::lower), calls
// extract_features, and hands the rows to a CostModel (cost_model.h), which
// scores a program as the sum of its rows' predictions (ALGORITHMS.md "Cost
// model"). In the spirit of Ansor's 164 features, but fewer, so each one is
// easy to trace to the IR.
//
// Every value is non-negative and reported as log2(1 + x), so products of
// loop extents stay in a range trees split well. "Weighted" means multiplied
// by exec_product (how often the statement runs). Buffer features count
// loop iterations the same way: guards of non-dividing splits bound them.
//
//   name                meaning
//   ------------------  ------------------------------------------------------
//   float_add_sub       float additions and subtractions, weighted
//   float_mul           float multiplications, weighted
//   float_div           float divisions, weighted
//   float_min_max       float min and max, weighted
//   float_math          math calls (exp, log, sqrt, tanh, erf, ...), weighted
//   float_cmp           comparisons of float operands, weighted
//   float_select        selects of float values, weighted
//   int_ops             integer (index) arithmetic and logic ops, weighted
//   inner_int_ops       those that move with the innermost loops (the vectorized
//                       one and the innermost other one) and that the compiler
//                       can neither hoist nor strength-reduce: comparisons,
//                       logic, min/max, and divisions and remainders (4 each:
//                       the instructions of a division by a constant), weighted
//   guard_ops           ops of the enclosing if-conditions (guards of
//                       non-dividing splits) times the trips of the loops
//                       around each, down to the innermost that moves it
//   vec_len             extent of the innermost enclosing vectorized loop (0: none)
//   vec_inner_loops     loops nested inside that vectorized loop (0: it is innermost)
//   unroll_product      product of the extents of enclosing unrolled loops (0: none)
//   parallel_product    product of the extents of enclosing parallel loops (0: none)
//   trip_product        product of the extents of all enclosing loops
//   exec_product        executions of the statement: trip_product with each loop
//                       bounded by the enclosing guards (an upper bound)
//   num_loops           number of enclosing loops
//   outermost_extent    extent of the outermost enclosing loop (0: none)
//   innermost_extent    iterations of the innermost enclosing loop (0: none)
//   auto_vector_extent  where no loop is vectorized, the extent of the serial
//                       loop LLVM's loop vectorizer takes: the one left
//                       innermost once the reduction loops it unrolls whole
//                       are gone (up to 16 iterations, or about 200
//                       instructions of the statement), if the store is
//                       contiguous along it and no load gathers, or if it
//                       is a reduction loop with nothing unrolled inside
//                       and every load contiguous along it (fast-math: LLVM
//                       splits the sum into vectors) (0: none)
//   window_registers    values a load's sliding window keeps in registers
//                       where LLVM unrolls it: two loops whose different
//                       iterations read the same element (an output column
//                       and a kernel column), all from the outer one inward
//                       at most 512 iterations; their extents' sum less one
//                       (0: none)
//   accumulator_in_memory  for an update whose stored element moves along
//                       the innermost loop LLVM keeps (it unrolls whole an
//                       innermost loop of up to 64 vector registers' worth
//                       of updates): the updates of one accumulator between
//                       its load and its store (those of the unrolled loops
//                       inside that loop that do not move it; 1: loaded and
//                       stored around every update) (0: in registers)
//   unrolled_accumulators  for an update, the accumulator vectors the
//                       unrolled loops inside the innermost loop LLVM keeps
//                       update, where those loops hold at most 64 updates
//                       (1 otherwise): independent chains the core
//                       interleaves whatever their order in the code
//   is_update           1 when the statement reads the buffer it writes (a reduction)
//   num_buffers         distinct buffers the statement touches
//   arith_intensity     weighted float ops / bytes touched by all its buffers
//   alloc_bytes         bytes of the stored buffer when allocated in the function
//                       (a local accumulator, a cache stage); 0 for arguments
//   alloc_trips         times that allocation is entered (product of the extents
//                       of the loops around it; 0 for arguments)
//   GPU (all 0 for a CPU target; the launch's from search/gpu_cost.h):
//   block_product       product of the enclosing blockIdx loops' extents
//   thread_product      ... threadIdx loops' (a tag bound again inside, a
//                       cooperative fetch, with its innermost extent)
//   vthread_product     ... vthread loops'
//   shared_bytes        shared memory per block of the kernel
//   blocks_per_sm       blocks resident per SM (occupancy: threads, shared
//                       memory, estimated registers)
//   wave_fill           percent of the SMs' block slots busy over the waves
//   gpu_estimate_ns     the analytic cost model's time for the kernel
//   double_buffered     shared tiles the kernel double-buffers (its rows are
//                       those of the kernel before pipelining, which copies
//                       the loop body: see extract_features)
//   b<i>_*              the statement's buffers, i = 0..4, ordered by bytes touched
//                       (largest first); all zero when it touches fewer:
//     b<i>_bytes          bytes of the buffer touched over the whole loop nest
//     b<i>_lines          distinct 64-byte cache lines touched by the innermost loop
//     b<i>_stride         |index step| in elements per iteration of the innermost loop
//     b<i>_reuse_carried  1 when an enclosing loop does not move the index (the
//                         same elements are reused across its iterations)
//     b<i>_reuse_distance iterations of the loops inside the innermost such loop
//                         (statement runs between two uses of one element)
//     b<i>_reuse_count    product of the extents of the loops that do not move it
//     b<i>_is_write       1 for the stored buffer
//     b<i>_thread_stride  |index step| between neighbouring threads (innermost
//                         threadIdx.x loop): coalescing, bank conflicts
//     b<i>_is_shared      1 for a shared-memory buffer
//     b<i>_line_reuse_distance  statement runs between two uses of one cache
//                         line: those of the loops inside the innermost loop
//                         (not a vectorized one) whose step stays within a
//                         line (0: none)
//     b<i>_set_conflict_lines  lines of one L1 set (4 KiB apart) the loops inside
//                         that loop touch between two such uses
//     b<i>_l1_traffic     bytes the buffer brings into a core's L1 (from the L2)
//     b<i>_l2_traffic     ... into a core's L2 (from the L3 or memory). Both
//                         by working sets: the footprint of every buffer over a
//                         run of the inner loops, whole lines, copies of a
//                         span that share the cache's sets limited by its
//                         ways. Where the working set of one iteration of a
//                         loop fits the cache's usable share (half of the
//                         L1, three quarters of the L2), that loop's iterations
//                         share what they both touch; the loops outside it
//                         bring its footprint again each time.
//     b<i>_load_share     share of the statement's runs that issue the access:
//                         1 / the extents of the loops that do not move it and
//                         that it is hoisted out of (inside the innermost one
//                         that moves it) or shared across (unrolled or vector
//                         loops inside the innermost loop LLVM keeps)
#pragma once

#include <string>
#include <vector>

#include "lower/lower.h"
#include "target/target.h"

namespace tunectl::search {

// The row layout: names in column order, as tabled above.
const std::vector<std::string>& feature_names();

// One row per Store in func.body, in program order; every row has
// feature_names().size() finite entries. The GPU columns are filled for a
// cuda target, from `compiled` when given: the kernel as it runs, where func
// is its form before double buffering (whose copies of the loop body would
// otherwise give a program several times the rows of its single-buffered
// twin, which the cost model's per-program sum of rows cannot compare).
std::vector<std::vector<float>> extract_features(const lower::LoweredFunc& func,
                                                 const target::Target& target = target::Target{},
                                                 const lower::LoweredFunc* compiled = nullptr);

}  // namespace tunectl::search
