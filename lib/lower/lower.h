// lower(): State -> loop IR. Reads top to bottom as a list of passes
// (STYLE.md habit 4): build the loop nest of each root stage from its leaves,
// place attached stages inside their target loops with the regions that bound
// inference gives them, inline inlined stages, lay out prepacked constants,
// allocate intermediate buffers in their scopes, apply auto-unroll pragmas,
// flatten indices, simplify.
// TUNECTL_DEBUG=1 prints the IR after each pass.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "schedule/state.h"

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
};

// How to fill argument `arg` of a kernel from the constant in its
// placeholder layout: func's arguments are (the constant, the packed
// buffer). Run once when the constant is known, never inside timed calls.
struct InputPacking {
  int arg = 0;
  LoweredFunc func;
};

LoweredFunc lower(const schedule::State& state, const std::string& name);

}  // namespace tunectl::lower
