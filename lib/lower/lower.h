// lower(): a schedule State -> a function of loop IR ready for a backend.
// Lowering is schedule_to_loops (schedule_to_loops.h), which works out what
// the schedule says of each stage and builds the loop nests, followed by the
// target's passes: loop IR in, loop IR out, one pass per header, listed in
// order once, in passes_for():
//   llvm: flatten_buffers (flatten.h) -> simplify_loops (simplify_loops.h)
//         -> partition_loops (partition_loops.h)
//         -> promote_accumulators (promote_accumulators.h)
//   cuda: flatten_buffers -> simplify_loops, then check_gpu_launch (check_gpu_launch.h)
//         -> inject_virtual_threads (inject_virtual_threads.h)
//         -> insert_barriers (insert_barriers.h)
// A pass rewrites the kernel and its packing functions alike.
// `tunectl compile-op --emit passes` prints the function after each step; with
// -v each step's time is logged.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/stmt.h"
#include "schedule/state.h"
#include "target/target.h"

namespace tunectl::lower {

struct InputPacking;

// A kernel ready for code generation: arguments are the DAG's placeholders (in
// DAG order) followed by its outputs; every Load/Store in body has one flat
// index into a buffer that is either an argument or allocated in body. A
// prepacked constant (schedule::PrepackStep) is passed packed: its argument
// is the packed buffer, and `packings` says how to fill it.
struct LoweredFunc {
  std::string name;
  std::vector<ir::Buffer> args;
  ir::Stmt body;
  std::vector<InputPacking> packings;  // by increasing `arg`
  // The kind of target whose passes lowered it (lower()); a backend of
  // another kind refuses it: a CUDA kernel lowered without the GPU passes
  // has no barriers.
  target::TargetKind lowered_for = target::TargetKind::Llvm;
  // The shared buffers, by name, whose stage has pragma double_buffer
  // (double_buffer.h does it on GPU targets).
  std::vector<std::string> double_buffered = {};
};

// How to fill argument `arg` of a kernel from the constant in its
// placeholder layout: func's arguments are (the constant, the packed
// buffer). Run once when the constant is known, never inside timed calls.
struct InputPacking {
  int arg = 0;
  LoweredFunc func;
};

// One lowering pass; the target gives the limits a pass checks.
struct Pass {
  const char* name;
  LoweredFunc (*run)(LoweredFunc func, const target::Target& target);
};

// The passes of a kind of target, in the order they run.
const std::vector<Pass>& passes_for(target::TargetKind kind);

// Sees the function after schedule_to_loops and after each pass, with the
// step's name.
using PassObserver = std::function<void(std::string_view step, const LoweredFunc& func)>;

// "func name(args)" and the body, then each packing function the same way.
std::string to_string(const LoweredFunc& func);

// Runs the passes of target's kind. UserError when the schedule cannot be
// lowered (schedule_to_loops) or cannot run on the target (a GPU launch
// beyond its limits).
LoweredFunc lower(const schedule::State& state, const std::string& name,
                  const target::Target& target = target::Target{}, const PassObserver& observe = nullptr);

}  // namespace tunectl::lower
