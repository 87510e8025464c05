// A ComputeDAG as JSON, so that a tuning log is self-contained: `replay`
// rebuilds each task's DAG from its log record alone, with no model. The form
// lists every op in topological order (placeholders with name, shape and
// dtype; compute ops with axes, body expression tree and tag) and names
// tensors and variables by position. dag_from_json(dag_to_json(d)) has the
// same canonical text and workload key as d.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "te/compute_dag.h"

namespace tunectl::te {

nlohmann::json dag_to_json(const ComputeDAG& dag);
// UserError naming the op and field for malformed or inconsistent JSON.
ComputeDAG dag_from_json(const nlohmann::json& j);

}  // namespace tunectl::te
