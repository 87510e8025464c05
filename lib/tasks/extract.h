// tasks::extract: subgraphs -> tuning tasks. Subgraphs with equal workload
// keys share one task; a task's weight is how many subgraphs it stands for,
// and the end-to-end objective is sum(weight x latency) over tasks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/partition.h"

namespace tunectl::tasks {

struct Task {
  std::string workload_key;
  std::string name;  // readable: the first subgraph's name
  std::shared_ptr<const te::ComputeDAG> dag;
  int weight = 0;
  double flops = 0;              // per call
  std::vector<int> subgraphs;    // indices of the subgraphs it stands for
};

// Tasks in order of first occurrence.
std::vector<Task> extract_tasks(const std::vector<graph::Subgraph>& subgraphs);

}  // namespace tunectl::tasks
