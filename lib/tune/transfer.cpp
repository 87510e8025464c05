#include "tune/transfer.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include "ir/error.h"
#include "log/log_file.h"

namespace tunectl::tune {
namespace {

struct OtherRecords {
  int files = 0;
  std::vector<log::Record> records;  // measured on the target, in file order
  std::vector<std::string> warnings;
};

// The measured (not estimated) records of `target` in the logs at `paths`.
OtherRecords read_other_records(const std::vector<std::string>& paths, const std::string& target) {
  OtherRecords out;
  for (const std::string& path : paths) {
    for (const std::string& file : log::log_files(path)) {
      log::LogContents contents = log::read_log(file);
      ++out.files;
      for (std::string& w : contents.warnings) out.warnings.push_back(std::move(w));
      const std::string note = log::other_targets_note(contents.records, target);
      if (!note.empty()) out.warnings.push_back(file + ": " + note);
      for (log::Record& r : log::records_for_target(contents.records, target))
        if (!r.result.estimated) out.records.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace

Transfer transfer_records(const std::vector<std::string>& paths, const std::vector<tasks::Task>& tasks,
                          const std::string& target, const std::string& log_path) {
  Transfer out;
  OtherRecords others = read_other_records(paths, target);
  out.files = others.files;
  out.warnings = std::move(others.warnings);
  out.records = static_cast<int>(others.records.size());
  const std::map<std::string, log::Record> best = log::best_records(others.records, target);

  std::vector<log::Record> own;
  if (std::filesystem::exists(log_path)) own = log::records_for_target(log::read_log(log_path).records, target);
  const std::map<std::string, log::Record> own_best = log::best_records(own, target);
  std::set<std::string> own_programs;
  for (const log::Record& r : own) own_programs.insert(log::program_key(r.task.workload_key, r.steps));

  std::unique_ptr<log::LogWriter> writer;
  std::set<std::string> done;
  for (const tasks::Task& task : tasks) {
    auto it = best.find(task.workload_key);
    if (it == best.end() || !done.insert(task.workload_key).second) continue;
    const log::Record& r = it->second;
    auto mine = own_best.find(task.workload_key);
    if (mine != own_best.end() && !mine->second.result.estimated &&
        mine->second.result.median_cost() <= r.result.median_cost()) continue;
    if (own_programs.count(log::program_key(r.task.workload_key, r.steps))) continue;
    if (!writer) writer = std::make_unique<log::LogWriter>(log_path);
    writer->append(r);
    out.tasks.push_back(task.name);
  }
  if (writer && !writer->warning().empty()) out.warnings.push_back(writer->warning());
  return out;
}

Retime programs_to_retime(const std::vector<std::string>& paths, const std::vector<tasks::Task>& tasks,
                          const std::string& target, int top) {
  user_check(top >= 1, "tune: --retime-top must be at least 1, got ", top);
  Retime out;
  OtherRecords others = read_other_records(paths, target);
  out.files = others.files;
  out.warnings = std::move(others.warnings);
  out.records = static_cast<int>(others.records.size());
  std::set<std::string> wanted;
  for (const tasks::Task& t : tasks) wanted.insert(t.workload_key);
  std::vector<const log::Record*> valid;
  for (const log::Record& r : others.records)
    if (r.result.ok() && wanted.count(r.task.workload_key)) valid.push_back(&r);
  // Fastest first; a program listed twice (merged logs) counts once.
  std::stable_sort(valid.begin(), valid.end(), [](const log::Record* a, const log::Record* b) {
    return a->result.median_cost() < b->result.median_cost();
  });
  std::set<std::string> seen;
  for (const log::Record* r : valid) {
    std::vector<std::vector<schedule::Step>>& programs = out.programs[r->task.workload_key];
    if (static_cast<int>(programs.size()) >= top || !seen.insert(log::program_key(r->task.workload_key, r->steps)).second)
      continue;
    programs.push_back(r->steps);
  }
  return out;
}

}  // namespace tunectl::tune
