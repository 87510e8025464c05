// Shared fixtures of the tuning-loop tests: a tiny task set built by hand
// from the ops registry (a small matmul and an elementwise relu), fast
// measurement and search settings, and a temporary log path.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ops/registry.h"
#include "tasks/extract.h"
#include "tune/tuner.h"

namespace tunectl::tune_test {

inline tasks::Task make_task(const std::string& op, const nlohmann::json& params, const std::string& name, int weight) {
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params));
  tasks::Task t;
  t.workload_key = dag->workload_key();
  t.name = name;
  t.dag = dag;
  t.weight = weight;
  t.flops = dag->flop_count();
  return t;
}

inline tasks::Task small_matmul() { return make_task("matmul", {{"M", 16}, {"N", 24}, {"K", 32}}, "matmul_16", 1); }

inline std::vector<tasks::Task> tiny_tasks() {
  return {small_matmul(), make_task("relu", {{"shape", {32, 48}}}, "relu_32", 2)};
}

inline tune::TuneOptions fast_options(const std::string& log_path) {
  tune::TuneOptions o;
  o.log_path = log_path;
  o.measures_per_round = 8;
  o.progress = false;
  o.search.population = 32;
  o.search.generations = 1;
  o.xgb.num_rounds = 10;
  o.measure.cpu_calls = 3;
  o.measure.flush_cache = false;
  o.measure.run_timeout_s = 2;
  o.measure.parallel_builds = 2;  // chunks of 4 candidates
  o.runoff_top = 0;  // the loop's tests count records; the runoff's set it
  return o;
}

// A fresh, empty directory under the system temp dir, removed on destruction.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag)
      : path(std::filesystem::temp_directory_path() / ("tunectl_tune_" + tag + "_" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace tunectl::tune_test
