// Writing a kernels folder: record -> DAG (te::dag_from_json) -> State
// (schedule::replay) -> LoweredFunc -> a JIT-compiled copy checked against the
// reference evaluator -> <symbol>.o, then all objects -> the shared library
// (shared_library_link.cpp), then the manifest (manifest.cpp). The manifest is
// written last, through a temporary file and a rename, so a folder whose
// manifest exists was completely written.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "check/reference_check.h"
#include "ir/error.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_files.h"
#include "kernels/staged_folder.h"
#include "kernels/shared_library_link.h"
#include "lower/lower.h"
#include "schedule/state.h"
#include "te/dag_json.h"

namespace tunectl::kernels {

namespace {

// Seed of the random check inputs: fixed, so replays check the same values.
constexpr uint64_t kCheckSeed = 1;

std::string task_label(const log::Record& r) { return "task " + r.task.name + " (" + r.task.workload_key + ")"; }

// Rebuilds, checks and emits one record's kernel as dir/<symbol>.o.
KernelEntry build_kernel(const log::Record& record, const std::string& dir, const backend::Backend& backend,
                         KernelCheck checking) {
  user_check(record.task.target == backend.target().str(), "the record was tuned for target '", record.task.target,
             "', not '", backend.target().str(), "'");
  user_check(record.result.ok(), "the record is a failed measurement (", log::to_string(record.result.error),
             "), not a program to keep");
  auto dag = std::make_shared<const te::ComputeDAG>(te::dag_from_json(record.task.dag));
  user_check(dag->workload_key() == record.task.workload_key, "the record's DAG has workload key ",
             dag->workload_key(), ", not the record's ", record.task.workload_key);
  KernelEntry entry = build_checked_kernel(schedule::replay(dag, record.steps), dir, backend, checking);
  entry.task_name = record.task.name;
  entry.cost_seconds = record.result.median_cost();
  entry.record = record;
  return entry;
}

}  // namespace

KernelEntry build_checked_kernel(const schedule::State& state, const std::string& dir, const backend::Backend& backend,
                                 KernelCheck checking) {
  const te::ComputeDAG& dag = *state.dag;
  KernelEntry entry;
  entry.workload_key = dag.workload_key();
  entry.symbol = kernel_symbol(entry.workload_key);
  lower::LoweredFunc func = lower::lower(state, entry.symbol, backend.target());
  auto arg_of = [](const ir::Buffer& b) { return KernelArg{b->name, b->shape, std::string(ir::to_string(b->dtype))}; };
  for (const ir::Buffer& b : func.args) entry.args.push_back(arg_of(b));
  for (const lower::InputPacking& p : func.packings)
    entry.packings.push_back(KernelPacking{p.arg, p.func.name, arg_of(p.func.args.at(0))});

  entry.launch = backend.launch_config(func);

  if (checking == KernelCheck::AgainstReference) {
    const backend::CheckRun run = backend::check_run(backend, func, check::emulate_in_part(dag));
    const check::CheckResult r = check::check_against_reference(dag, run.run, kCheckSeed, {}, run.partial);
    user_check(r.ok, "the kernel computes a wrong answer", run.emulated_because ? " in the emulator" : "", ": ",
               r.message);
  }

  backend.write(func, (std::filesystem::path(dir) / (entry.symbol + backend.file_suffix())).string());
  return entry;
}

namespace {

void write_manifest(const Manifest& manifest, const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kManifestName).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << manifest_to_json(manifest).dump(2) << "\n";
  out.flush();
  system_check(out.good(), "cannot write the kernels manifest", "write", path);
}

}  // namespace

Manifest write_kernel_cache(const std::vector<log::Record>& records, const std::string& dir,
                            const backend::Backend& backend, KernelCheck checking) {
  user_check(!records.empty(), "no records to write to the kernels folder ", dir);
  std::vector<const log::Record*> sorted;
  for (const log::Record& r : records) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const log::Record* a, const log::Record* b) { return a->task.workload_key < b->task.workload_key; });
  for (size_t i = 1; i < sorted.size(); ++i)
    user_check(sorted[i - 1]->task.workload_key != sorted[i]->task.workload_key, "two records for ",
               task_label(*sorted[i]), ": the kernels folder takes one per task (e.g. log::best_records)");

  StagedFolder staged(dir, kManifestName);
  Manifest manifest{backend.target().str(), backend.target().features,
                    backend.links_objects() ? kLibraryName : "", {}};
  std::vector<std::string> objects;
  for (const log::Record* r : sorted) {
    try {
      manifest.kernels.push_back(build_kernel(*r, staged.path(), backend, checking));
    } catch (const UserError& e) {
      user_fail(task_label(*r), ": ", e.what());
    }
    objects.push_back(manifest.kernels.back().symbol + backend.file_suffix());
  }
  if (backend.links_objects()) link_shared_library(staged.path(), objects, kLibraryName);
  write_manifest(manifest, staged.path());
  staged.commit();
  return manifest;
}

}  // namespace tunectl::kernels
