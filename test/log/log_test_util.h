// Records for the log tests: tasks built from the ops registry (the "dag"
// field is te::dag_to_json of the DAG, as the tuner writes it), random
// measurement results of every error kind, a field-by-field comparison and a
// scratch folder removed at the end of each test.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "ir/error.h"
#include "log/record.h"
#include "ops/registry.h"
#include "te/compute_dag.h"
#include "te/dag_json.h"

namespace tunectl::log::testing {

using DagPtr = std::shared_ptr<const te::ComputeDAG>;

inline DagPtr op_dag(const std::string& op, const nlohmann::json& params = nlohmann::json::object()) {
  return std::make_shared<te::ComputeDAG>(ops::make_op_dag(op, params));
}

// The target of the test records: AVX2 (x86-64-v3), which every CI machine
// here runs (a Zen 3 as well as the Zen 4/5 reference), so that the kernels
// tests can load what they write.
inline constexpr const char* kRecordTarget = "llvm -mcpu=x86-64-v3";

inline TaskInfo task_of(const te::ComputeDAG& dag, const std::string& name) {
  return TaskInfo{dag.workload_key(), name, kRecordTarget, te::dag_to_json(dag)};
}

inline constexpr MeasureError kAllErrors[] = {
#define TUNECTL_ERROR_VALUE(name, text) MeasureError::name,
    TUNECTL_MEASURE_ERRORS(TUNECTL_ERROR_VALUE)
#undef TUNECTL_ERROR_VALUE
};

// An ok result with 1 to 5 costs, or an error result with a message that
// needs escaping in JSON.
inline MeasureResult random_result(MeasureError error, std::mt19937_64& rng) {
  MeasureResult r;
  r.error = error;
  std::uniform_real_distribution<double> seconds(1e-6, 1e-1);
  if (error == MeasureError::None) {
    int n = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) r.costs.push_back(seconds(rng));
  } else {
    r.error_message =
        std::string("failed: \"") + to_string(error) + "\"\n\tat step " + std::to_string(rng() % 100) + " \xc3\xbc";
  }
  r.build_seconds = seconds(rng) * 10;
  r.run_seconds = seconds(rng) * 10;
  r.timestamp = 1700000000 + static_cast<int64_t>(rng() % 100000000);
  return r;
}

inline void check_same_record(const Record& a, const Record& b) {
  CHECK(a.version == b.version);
  CHECK(a.task.workload_key == b.task.workload_key);
  CHECK(a.task.name == b.task.name);
  CHECK(a.task.target == b.task.target);
  CHECK(a.task.dag == b.task.dag);
  CHECK(a.steps == b.steps);
  CHECK(a.result.costs == b.result.costs);  // exact: doubles round-trip through JSON
  CHECK(a.result.error == b.result.error);
  CHECK(a.result.error_message == b.result.error_message);
  CHECK(a.result.build_seconds == b.result.build_seconds);
  CHECK(a.result.run_seconds == b.result.run_seconds);
  CHECK(a.result.timestamp == b.result.timestamp);
}

// The message of the UserError that f throws, or a text saying there was none.
template <typename F>
std::string user_error(F f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError thrown)";
}

// A fresh folder under the system temp folder, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("tunectl_log_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace tunectl::log::testing
