// The reference evaluator: runs a ComputeDAG's definitions directly, element
// by element, with no schedule and no lowering. Its outputs are what every
// tuned kernel is checked against (runtime::measure), so it must stay an
// independent, obviously correct reading of the compute definitions: float32
// values are computed in float (like the kernels), integers in int64,
// reductions in axis order.
#pragma once

#include <vector>

#include "runtime/ndarray.h"
#include "te/compute_dag.h"

namespace tunectl::te {

// inputs in dag.placeholders() order; returns the arrays of dag.outputs() in
// order. Throws UserError when an input's count, shape or dtype is wrong.
std::vector<runtime::NDArray> evaluate(const ComputeDAG& dag, const std::vector<runtime::NDArray>& inputs);

// The same with output o computed only at positions[o] (flat row-major
// indices; its other elements are left 0) unless another op reads it, and
// every other op whole: the
// reference of a workload too big to evaluate everywhere
// (check::reference_outputs). positions is empty (every element) or has a
// list per output.
std::vector<runtime::NDArray> evaluate_at(const ComputeDAG& dag, const std::vector<runtime::NDArray>& inputs,
                                          const std::vector<std::vector<int64_t>>& positions);

// Random inputs for dag.placeholders(), uniform in [lo, hi), from rng.
std::vector<runtime::NDArray> random_inputs(const ComputeDAG& dag, std::mt19937_64& rng, double lo = -1.0,
                                            double hi = 1.0);

}  // namespace tunectl::te
