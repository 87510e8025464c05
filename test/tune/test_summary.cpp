// Bookkeeping pieces of the tuning loop without measuring anything: the
// summary table, the progress line, and what resume_from_log makes of a log.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "log/log_file.h"
#include "schedule/state.h"
#include "tune/constant_footprint.h"
#include "tune/progress.h"
#include "tune/resume.h"
#include "tune/tuner.h"
#include "tune_test_util.h"

using namespace tunectl;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

tune::TaskSummary task_summary(const std::string& name, int weight, double flops, double best, int trials,
                               int errors) {
  tune::TaskSummary t;
  t.name = name;
  t.weight = weight;
  t.flops = flops;
  t.best_cost = best;
  t.trials = trials;
  t.errors = errors;
  t.status = "active";
  return t;
}

log::Record record(const tasks::Task& task, std::vector<schedule::Step> steps, double cost) {
  log::Record r;
  r.task = {task.workload_key, task.name, "llvm", nlohmann::json::object()};
  r.steps = std::move(steps);
  if (std::isfinite(cost)) {
    r.result.costs = {cost};
  } else {
    r.result.error = log::MeasureError::InstantiationError;
    r.result.error_message = "bad";
  }
  return r;
}

}  // namespace

TEST_CASE("estimated latency sums weight x best and is unknown while a task has none", "[tune]") {
  tune::TuneSummary s;
  s.tasks = {task_summary("a", 2, 1e6, 1e-3, 10, 1), task_summary("b", 1, 2e6, 3e-3, 5, 0)};
  CHECK(s.estimated_latency() == Approx(5e-3));
  s.tasks.push_back(task_summary("c", 1, 1e6, kInf, 4, 4));
  CHECK(std::isinf(s.estimated_latency()));
}

TEST_CASE("the summary table has a row per task, shares and totals", "[tune]") {
  tune::TuneSummary s;
  s.tasks = {task_summary("conv_a", 2, 4e6, 1e-3, 10, 1), task_summary("dense_b", 1, 3e6, 3e-3, 6, 2)};
  s.new_trials = 12;
  s.resumed_trials = 4;
  s.stop_reason = "trial budget";
  const std::string table = tune::summary_table(s);
  INFO(table);
  for (const char* column : {"name", "weight", "trials", "errors", "best ms", "GFLOP/s", "share", "status"}) {
    CHECK(table.find(column) != std::string::npos);
  }
  CHECK(table.find("conv_a") != std::string::npos);
  CHECK(table.find("1.0000") != std::string::npos);  // best ms of conv_a
  CHECK(table.find("4.00") != std::string::npos);    // its GFLOP/s: 4e6 / 1e-3
  CHECK(table.find("40.0%") != std::string::npos);   // 2 x 1 ms of 5 ms
  CHECK(table.find("60.0%") != std::string::npos);
  CHECK(table.find("5.0000") != std::string::npos);  // total ms
  CHECK(table.find("12 new measurements, 4 resumed") != std::string::npos);
  CHECK(table.find("trial budget") != std::string::npos);
  CHECK(table.find("constructed programs") == std::string::npos);  // none: no line
  s.constructed_tasks = 2;
  CHECK(tune::summary_table(s).find("the search of 2 tasks started from constructed programs") != std::string::npos);
}

TEST_CASE("the summary table shows a task without a valid program as dashes, and why it has none", "[tune]") {
  tune::TuneSummary s;
  s.tasks = {task_summary("only", 1, 1e6, kInf, 3, 3), task_summary("fine", 1, 1e6, 1e-3, 3, 1)};
  s.tasks[0].first_error = "compile_device_error: kernel k spills registers";
  s.tasks[1].first_error = "wrong_answer: off by one";
  const std::string table = tune::summary_table(s);
  INFO(table);
  CHECK(table.find("only") != std::string::npos);
  // No share without a latency (the wall-time line below has its own).
  CHECK(table.substr(0, table.find("wall time:")).find('%') == std::string::npos);
  CHECK(table.find("tasks without a valid program:\n  only: every measurement failed; the first: "
                   "compile_device_error: kernel k spills registers\n") != std::string::npos);
  CHECK(table.find("off by one") == std::string::npos);  // a task with a program lists no failure
}

TEST_CASE("the summary table says where the wall time went", "[tune]") {
  tune::TuneSummary s;
  s.tasks = {task_summary("only", 1, 1e6, 1e-3, 3, 0)};
  s.wall_seconds = 100;
  s.time = {10, 5, 20, 15, 40, 5, 3, 2};
  const std::string table = tune::summary_table(s);
  INFO(table);
  CHECK(table.find("wall time: search 10.0 s (10%), lowering 5.0 s (5%), compiling 20.0 s (20%), checking 15.0 s "
                   "(15%), timing 40.0 s (40%), training 5.0 s (5%), runoff 3.0 s (3%), other 2.0 s (2%)\n") !=
        std::string::npos);
  CHECK(table.find("runoff:") == std::string::npos);  // no runoff ran
}

TEST_CASE("the summary table says what the runoff changed", "[tune]") {
  tune::TuneSummary s;
  s.tasks = {task_summary("a", 2, 1e6, 1e-3, 3, 0), task_summary("b", 1, 1e6, 2e-3, 3, 0),
             task_summary("c", 1, 1e6, 4e-3, 3, 0)};
  s.time.runoff_s = 1.5;
  // a: a new best, slower than the search timed it; b kept its best; c had none to time.
  s.runoff = {{3, 0.9e-3, 1e-3, true, ""}, {2, 2e-3, 2e-3, false, ""}, {}};
  const std::string table = tune::summary_table(s);
  INFO(table);
  CHECK(table.find("runoff: up to 3 programs of each of 2 tasks timed side by side (1.5 s): a new best for 1 of them; "
                   "their sum of weight x best 4.0000 ms by the runoff's times, 3.8000 ms by the search's\n") !=
        std::string::npos);
}

TEST_CASE("progress line and durations", "[tune]") {
  CHECK(tune::format_duration(5.25) == "5.2s");
  CHECK(tune::format_duration(62) == "1m02s");
  CHECK(tune::format_duration(7500) == "2h05m");
  tune::ProgressInfo p;
  p.round = 12;
  p.task = 2;
  p.num_tasks = 7;
  p.task_name = "conv2d_relu_2";
  p.trials = 230;
  p.trial_budget = 1000;
  p.task_gflops = 41.2;
  p.latency_s = 1.83e-3;
  p.elapsed_s = 62;
  p.left_s = 220;
  CHECK(tune::progress_line(p) ==
        "[round 12] task 3/7 conv2d_relu_2 | trials 230/1000 | best 41.2 GFLOP/s | est. latency 1.83 ms | "
        "elapsed 1m02s, left ~3m40s");
  p.task_gflops = 0;
  p.latency_s = kInf;
  p.left_s = -1;
  CHECK(tune::progress_line(p) ==
        "[round 12] task 3/7 conv2d_relu_2 | trials 230/1000 | best none yet | est. latency ? | elapsed 1m02s");
  p.task_best_s = 2.5e-6;  // an integer kernel: no flops, so its time
  CHECK(tune::progress_line(p) ==
        "[round 12] task 3/7 conv2d_relu_2 | trials 230/1000 | best 0.0025 ms | est. latency ? | elapsed 1m02s");
}

TEST_CASE("best cost history has one entry per chunk of a round", "[tune]") {
  CHECK(tune::best_cost_history({}, 4).empty());
  CHECK(tune::best_cost_history({3, kInf, 2, 5, 1}, 2) == std::vector<double>{3, 2, 1});
  std::vector<double> h = tune::best_cost_history({kInf, kInf, 4}, 2);
  REQUIRE(h.size() == 2);
  CHECK(std::isinf(h[0]));
  CHECK(h[1] == 4);
}

TEST_CASE("resume counts each program once, ignores other tasks and estimates, skips what does not replay", "[tune]") {
  std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  const tasks::Task& mm = tasks[0];
  const int stage = static_cast<int>(schedule::State::initial(mm.dag).stages.size()) - 1;
  std::vector<schedule::Step> split = {schedule::SplitStep{stage, 0, 16, {4}, true}};
  std::vector<schedule::Step> bad = {schedule::SplitStep{stage, 0, 17, {4}, true}};  // wrong extent
  std::vector<schedule::Step> bad2 = {schedule::SplitStep{stage, 1, 99, {4}, true}};
  tasks::Task other = tune_test::make_task("matmul", {{"M", 8}, {"N", 8}, {"K", 8}}, "other", 1);
  std::vector<log::Record> records = {
      record(mm, {}, 2e-3),           record(mm, split, 1e-3), record(mm, split, 5e-4),  // a duplicate
      record(mm, bad, kInf),          record(mm, bad2, 3e-3),                          // error; ok but broken
      record(other, {}, 1e-6),        record(tasks[1], {}, 4e-4)};
  // A constructed program's estimated record is not a measurement.
  log::Record constructed = record(tasks[1], split, 1e-9);
  constructed.result.estimated = true;
  records.push_back(constructed);
  tune::ResumeState s = tune::resume_from_log(records, tasks, 2, target::Target{});
  CHECK(s.trials == 5);
  CHECK(s.measured_keys.size() == 5);
  REQUIRE(s.tasks.size() == 2);
  CHECK(s.tasks[0].trials == 4);
  CHECK(s.tasks[0].errors == 1);
  CHECK(s.tasks[0].first_error == "instantiation_error: bad");
  CHECK(s.tasks[0].measured.size() == 2);
  CHECK(s.tasks[0].best_cost == 1e-3);
  CHECK(s.tasks[0].history == std::vector<double>{1e-3, 1e-3});
  CHECK(s.tasks[1].trials == 1);
  CHECK(s.tasks[1].history == std::vector<double>{4e-4});
  CHECK(s.features.size() == 3);
  REQUIRE(s.throughputs.size() == 3);
  CHECK(s.throughputs[0] == Approx(mm.flops / 2e-3));
  REQUIRE(s.warnings.size() == 1);  // the ok record that does not replay, not the error one
  CHECK(s.warnings[0].find("matmul_16") != std::string::npos);
}

TEST_CASE("a model's constants are counted per subgraph and weighed against the L3", "[cpu]") {
  // gemm's B [8, 24] is a model constant, A [16, 8] is not; matmul has none.
  const tasks::Task gemm =
      tune_test::make_task("gemm", {{"M", 16}, {"N", 24}, {"K", 8}, {"c_shape", nlohmann::json::array()}}, "gemm", 3);
  target::Target target;
  target.l3_bytes = 3 * 8 * 24 * 4;
  tune::ConstantFootprint f = tune::constant_footprint({gemm, tune_test::small_matmul()}, target);
  CHECK(f.bytes == 3 * 8 * 24 * 4);
  CHECK_FALSE(f.exceeds_cache());
  CHECK(f.describe().find("left in the L3, the L2 emptied before each timed call") != std::string::npos);
  // Constants that fit: left in the L3, each thread's L2 emptied (twice its size read).
  target.l2_bytes = 1 << 20;
  measure::MeasureOptions o;
  tune::set_cpu_timing(o, {gemm, tune_test::small_matmul()}, target);
  CHECK_FALSE(o.flush_cache);
  CHECK(o.evict_private_bytes == 2 << 20);
  target.l3_bytes -= 1;
  f = tune::constant_footprint({gemm}, target);
  CHECK(f.exceeds_cache());
  CHECK(f.describe().find("evicted before each timed call") != std::string::npos);
  // Constants over the L3: evicted before each call, nothing else.
  o = {};
  tune::set_cpu_timing(o, {gemm}, target);
  CHECK(o.flush_cache);
  CHECK(o.evict_private_bytes == 0);
  // Warm timing asked for (flush_cache false) stays warm.
  o = {};
  o.flush_cache = false;
  tune::set_cpu_timing(o, {gemm}, target);
  CHECK_FALSE(o.flush_cache);
  CHECK(o.evict_private_bytes == 0);
}
