// `tunectl report LOG [--model MODEL] -o report.html`: the tuning run as a
// self-contained HTML page (report/report.h). With a model, the estimate
// sums over the model's tasks with their weights (as `tune` does, in the
// layout the log favours); without one, over the log's tasks once each.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "backend/backend.h"
#include "cmd/model_inputs.h"
#include "cmd/model_layout.h"
#include "cmd/subcommands.h"
#include "cmd/tuning_logs.h"
#include "ir/error.h"
#include "log/log_file.h"
#include "report/report.h"

namespace tunectl::cmd {

namespace {

struct ReportOptions {
  std::string log;
  std::string model;
  std::string target;
  std::string output;
  ModelInputOptions model_inputs;
  std::string layout = "auto";
};

void write_report(const ReportOptions& o) {
  std::vector<log::Record> all;
  for (const std::string& file : log::log_files(o.log)) {
    log::LogContents contents = log::read_log(file);
    for (const std::string& w : contents.warnings) spdlog::warn("{}", w);
    all.insert(all.end(), contents.records.begin(), contents.records.end());
  }
  const std::string target = log::pick_target(all, o.target, o.log);
  const std::string note = log::other_targets_note(all, target);
  if (!note.empty()) spdlog::info("{}: {}", o.log, note);
  std::vector<report::ReportTask> tasks;
  std::string title = "tunectl report: " + o.log;
  if (!o.model.empty()) {
    const TuningLogs logs = read_tuning_logs(o.log, target);
    const auto backend = backend::make_backend(backend::resolve_target(target));
    for (const tasks::Task& t :
         choose_layout(layout_candidates(specialize_model(o.model, o.model_inputs), o.layout, backend->target()), &logs)
             .tasks)
      tasks.push_back({t.workload_key, t.name, t.weight});
    title += " (model " + o.model + ")";
  }
  const report::ReportData data = report::report_data(log::records_for_target(all, target), tasks);
  user_check(data.records > 0, o.log, ": no records of ", o.model.empty() ? "any task" : "the model's tasks",
             " for target '", target, "'");
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  system_check(out.good(), "cannot write the report", "open", o.output);
  out << report::report_html(data, title);
  out.close();
  system_check(out.good(), "cannot write the report", "write", o.output);
  std::printf("wrote %s: %zu records of %zu tasks for %s\n", o.output.c_str(), data.records, data.tasks.size(),
              target.c_str());
}

}  // namespace

void register_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand("report", "Write how a tuning run went as one self-contained HTML page (SVG plots)");
  sub->add_option("log", o->log, "the tuning log (or folder of logs)")->required();
  sub->add_option("-o,--output", o->output, "the HTML file to write")->required();
  sub->add_option("--model", o->model, "the ONNX model: its tasks and their weights make the latency estimate")
      ->check(CLI::ExistingFile);
  sub->add_option("--target", o->target, "the target whose records to report (default: the log's only one)");
  add_model_input_options(sub, o->model_inputs);
  add_layout_option(sub, o->layout);
  sub->callback([o] { write_report(*o); });
}

}  // namespace tunectl::cmd
