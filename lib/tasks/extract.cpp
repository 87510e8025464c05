#include "tasks/extract.h"

#include <map>

#include "ir/error.h"

namespace tunectl::tasks {

std::vector<Task> extract_tasks(const std::vector<graph::Subgraph>& subgraphs) {
  std::vector<Task> tasks;
  std::map<std::string, size_t> by_key;
  for (size_t i = 0; i < subgraphs.size(); ++i) {
    const graph::Subgraph& sg = subgraphs[i];
    internal_check(sg.dag != nullptr, "subgraph ", sg.name, " has no compute DAG");
    std::string key = sg.dag->workload_key();
    auto [it, inserted] = by_key.emplace(key, tasks.size());
    if (inserted) {
      tasks.push_back(Task{key, sg.name, sg.dag, 0, sg.dag->flop_count(), {}});
    } else {
      // The key is a 64-bit hash: a collision would merge different work.
      internal_check(tasks[it->second].dag->canonical_text() == sg.dag->canonical_text(),
                     "workload key collision between subgraphs ", tasks[it->second].name, " and ", sg.name);
    }
    Task& t = tasks[it->second];
    ++t.weight;
    t.subgraphs.push_back(static_cast<int>(i));
  }
  return tasks;
}

}  // namespace tunectl::tasks
