// `tune --records FILE...`: programs tuned in other runs and for other
// models, reused. A task that another log has tuned on the same target
// starts from that log's best program: the record is copied into this run's
// log (where the log has no better program of the task), so the search is
// seeded with it, the scheduler counts the task as tuned, and the log stays
// self-contained for replay. TVM users ask for this transfer between models
// that share layers (ResNet-18 and ResNet-50 share most of theirs).
#pragma once

#include <string>
#include <vector>

#include "tasks/extract.h"

namespace tunectl::tune {

struct Transfer {
  int files = 0;                      // record files read
  int records = 0;                    // records of the target in them
  std::vector<std::string> tasks;     // names of the tasks whose best record was copied
  std::vector<std::string> warnings;  // truncated last lines skipped, records of other targets
};

// Copies into the log at log_path, for each of `tasks`, the best measured
// record on `target` (target::Target::str()) that the logs at `paths` (files
// or folders) hold, unless the log already has that program or a faster one.
// UserError for a missing or corrupt file.
Transfer transfer_records(const std::vector<std::string>& paths, const std::vector<tasks::Task>& tasks,
                          const std::string& target, const std::string& log_path);

}  // namespace tunectl::tune
