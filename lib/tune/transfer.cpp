#include "tune/transfer.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "log/log_file.h"

namespace tunectl::tune {

Transfer transfer_records(const std::vector<std::string>& paths, const std::vector<tasks::Task>& tasks,
                          const std::string& target, const std::string& log_path) {
  Transfer out;
  std::vector<log::Record> others;
  for (const std::string& path : paths) {
    for (const std::string& file : log::log_files(path)) {
      log::LogContents contents = log::read_log(file);
      ++out.files;
      for (std::string& w : contents.warnings) out.warnings.push_back(std::move(w));
      const std::string note = log::other_targets_note(contents.records, target);
      if (!note.empty()) out.warnings.push_back(file + ": " + note);
      for (log::Record& r : log::records_for_target(contents.records, target))
        if (!r.result.estimated) others.push_back(std::move(r));
    }
  }
  out.records = static_cast<int>(others.size());
  const std::map<std::string, log::Record> best = log::best_records(others, target);

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

}  // namespace tunectl::tune
