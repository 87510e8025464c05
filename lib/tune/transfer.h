// `tune --records FILE...`: programs tuned in other runs and for other
// models, reused. A task that another log has tuned on the same target
// starts from that log's best program: the record is copied into this run's
// log (where the log has no better program of the task), so the search is
// seeded with it, the scheduler counts the task as tuned, and the log stays
// self-contained for replay. TVM users ask for this transfer between models
// that share layers (ResNet-18 and ResNet-50 share most of theirs).
//
// `tune --retime FILE...`: programs tuned on another machine or in another
// hour, whose times say nothing about this one (a log of a Zen 5 lists every
// program about twice as fast as a Zen 4 runs it). Nothing is copied: each
// task's best few programs there are measured again here, first, as the
// seeds of its search (tuner.h), so the run starts from what was found
// there with times of its own.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schedule/steps.h"
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

struct Retime {
  int files = 0;    // record files read
  int records = 0;  // records of the target in them
  // By workload key, for the tasks the files have valid programs of: the
  // `top` fastest distinct programs there, fastest first.
  std::map<std::string, std::vector<std::vector<schedule::Step>>> programs;
  std::vector<std::string> warnings;  // as Transfer's
};

// The programs to measure again for `tasks` on `target` from the logs at
// `paths` (files or folders); error and estimated records are left out.
// UserError for a missing or corrupt file, or top < 1.
Retime programs_to_retime(const std::vector<std::string>& paths, const std::vector<tasks::Task>& tasks,
                          const std::string& target, int top);

}  // namespace tunectl::tune
