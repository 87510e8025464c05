// lower(): State -> loop IR. Reads top to bottom as a list of passes
// (STYLE.md habit 4): build the loop nest of each root stage from its leaves,
// place attached stages inside their target loops with the regions that bound
// inference gives them, inline inlined stages, allocate intermediate buffers
// in their scopes, apply auto-unroll pragmas, flatten indices, simplify.
// TUNECTL_DEBUG=1 prints the IR after each pass.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "schedule/state.h"

namespace tunectl::lower {

// A kernel ready for code generation: arguments are the DAG's placeholders (in
// DAG order) followed by its outputs; every Load/Store in body has one flat
// index into a buffer that is either an argument or allocated in body.
struct LoweredFunc {
  std::string name;
  std::vector<ir::Buffer> args;
  ir::Stmt body;
};

LoweredFunc lower(const schedule::State& state, const std::string& name);

}  // namespace tunectl::lower
