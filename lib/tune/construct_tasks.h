// Tuning by construction alone (`tune --search construct`, and `tune
// --target cuda` on a machine without a GPU): each task's program is built
// from the analytic cost model (search/construct.h) in seconds, without
// running anything, and appended to the log as one record whose costs are
// marked estimated (log/record.h). A task that already has a valid record
// of the target in the log is kept as it is (resume). The summary says that
// no program was timed. A measured record of a task always wins over an
// estimated one (log::best_records), so a later measured tune on a device
// replaces these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tasks/extract.h"
#include "tune/tuner.h"

namespace tunectl::tune {

// options: log_path, backend (its target), seed, search, progress.
TuneSummary construct_tasks(const std::vector<tasks::Task>& tasks, const TuneOptions& options);

// The seed of a tuning run's construction of a task: the run's seed and the
// task's workload key, so that a task gets the same program in every run of
// one seed, whatever its place among the tasks (`--layout auto`'s first
// round and main phase tune different lists).
uint64_t construction_seed(uint64_t seed, const std::string& workload_key);

// Whether the backend's compiler takes func: a device program passes its
// resource check (no register spills); the host compiler takes any.
bool compiler_accepts(const backend::Backend& backend, const lower::LoweredFunc& func);

}  // namespace tunectl::tune
