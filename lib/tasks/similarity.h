// tasks::similarity_key: groups tuning tasks by structure for the task
// scheduler. Ansor's gradient scheduler guesses how fast a task can become
// from the best FLOP/s reached by a *similar* task (same computation, other
// shapes); TVM leaves those groups empty, we fill them from the DAG. Data
// flow: extract_tasks -> similarity_key per task -> TaskScheduler.
#pragma once

#include <string>

#include "te/compute_dag.h"

namespace tunectl::tasks {

// 16 hex digits of a 64-bit FNV-1a hash of dag.canonical_text() with every
// numeric literal replaced by a marker: shapes, reduce extents, index offsets
// and strides, float constants. Names and digits inside identifiers stay, and
// so does a shape's rank ("1x64x56x56" -> "#x#x#x#"). Two conv2d tasks of
// other sizes share a key; conv2d vs conv2d+relu, or a padded vs an unpadded
// conv (a pad stage more), do not.
std::string similarity_key(const te::ComputeDAG& dag);

}  // namespace tunectl::tasks
