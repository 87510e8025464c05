// Loop nest construction, the last step of schedule_to_loops: turns the
// completed stage records into one statement. Each active stage becomes a nest of its
// loops around a store of its body; reductions get an init store placed just
// above their outermost reduce loop; attached stages are placed (with their
// buffer allocated) inside their target loop, before the target's own body;
// root intermediates are allocated around the whole kernel. An auto-unrolled
// loop around attached stages is unrolled only while the code it replicates,
// theirs included, fits its stage's auto_unroll_max_step.
#pragma once

#include <vector>

#include "lower/stage_info.h"

namespace tunectl::lower {

// The kernel body of state, from stages completed by infer_bounds. Indices
// are still multi-dimensional; a store whose point may fall outside its
// stage's region or domain is wrapped in a guard.
ir::Stmt build_loop_nests(const schedule::State& state, const std::vector<StageInfo>& stages);

// Whether a reduction of this type may bind a reduce loop to threadIdx.x
// (its threads' shares combined by an AllReduce: the types warp shuffles
// move).
bool reduces_across_threads(ir::DType t);

}  // namespace tunectl::lower
