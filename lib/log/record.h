// One line of the tuning log: a measured program, self-contained (DESIGN.md
// "Tuning log"). It carries the task (workload key, readable name, target,
// the compute definition as JSON so `replay` needs no model), the schedule
// steps, and the measurement result (costs in seconds, error kind and
// message, build and run times, a timestamp), plus the format version.
//
// Format version 2, one JSON object per line (keys are written sorted):
//   {"result": {"build_s": 0.41, "costs": [1.2e-3, 1.1e-3, 1.3e-3],
//               "error": "none", "msg": "", "run_s": 0.9, "time": 1718000000},
//    "steps": [["SP", 2, 0, 512, [8, 16], true], ...],
//    "task": {"dag": {...}, "key": "9f2c...", "name": "matmul_512",
//             "target": "llvm -mcpu=znver4"},
//    "v": 2}
// "steps" is schedule::steps_to_json; "dag" is te::dag_to_json, kept here as
// opaque JSON; "error" is a name from TUNECTL_MEASURE_ERRORS; "time" is
// seconds since the epoch; "costs" are seconds, finite and non-negative, at
// least one for an ok record and none for an error record. Every field is
// required but the result's optional flags "estimated" and "runoff" (true
// when present); unknown fields are ignored. Version 2 added the prepack step
// ("PP") and constant placeholders in the DAG ("constant": true); a version 1
// record is a valid version 2 record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedule/steps.h"

namespace tunectl::log {

// The version this build writes; it reads this version and older ones it
// knows how to upgrade. A newer version is refused with a clear error.
inline constexpr int kLogVersion = 2;

// Why a measured program has no valid cost (Ansor's error kinds plus a wrong
// answer against the reference, which can never be "best").
#define TUNECTL_MEASURE_ERRORS(X)                  \
  X(None, "none")                                  \
  X(InstantiationError, "instantiation_error")     \
  X(CompileHostError, "compile_host_error")        \
  X(CompileDeviceError, "compile_device_error")    \
  X(RuntimeError, "runtime_error")                 \
  X(WrongAnswer, "wrong_answer")                   \
  X(BuildTimeout, "build_timeout")                 \
  X(RunTimeout, "run_timeout")                     \
  X(WorkerCrash, "worker_crash")                   \
  X(InternalError, "internal_error")               \
  X(Unknown, "unknown")

enum class MeasureError : uint8_t {
#define TUNECTL_ERROR_ENUM(name, text) name,
  TUNECTL_MEASURE_ERRORS(TUNECTL_ERROR_ENUM)
#undef TUNECTL_ERROR_ENUM
};
const char* to_string(MeasureError e);
MeasureError measure_error_from_string(const std::string& s);  // UserError if unknown

struct TaskInfo {
  std::string workload_key;
  std::string name;
  std::string target;     // e.g. "llvm -mcpu=znver4"
  nlohmann::json dag;     // te::dag_to_json of the task's DAG
};

struct MeasureResult {
  std::vector<double> costs;  // seconds per run of each repeat; empty on error
  MeasureError error = MeasureError::None;
  std::string error_message;
  double build_seconds = 0;
  double run_seconds = 0;     // wall time the measurement took
  int64_t timestamp = 0;      // seconds since the epoch when measured
  // The costs are an analytic estimate (construction without a device:
  // search/construct.h), not a measurement. Written only when true.
  bool estimated = false;
  // The costs come from a runoff (tune/runoff.h): the task's fastest
  // programs timed again side by side, call by call, so that the host's
  // drift over a tuning run cannot decide between them. A task's latest
  // runoff supersedes its records logged before it (log_file.h,
  // competing_records). Written only when true.
  bool runoff = false;
  bool ok() const { return error == MeasureError::None; }
  // Median of costs; +infinity on error.
  double median_cost() const;
  // "kind: message" of an error ("" when ok).
  std::string error_text() const;
};

struct Record {
  TaskInfo task;
  std::vector<schedule::Step> steps;
  MeasureResult result;
  int version = kLogVersion;  // the version it was read with; written as kLogVersion
};

// The format version of a record's JSON ("v"); UserError when it is
// missing, not an integer, below 1 or newer than kLogVersion.
int record_version(const nlohmann::json& j);

nlohmann::json record_to_json(const Record& r);
// UserError naming the field for a malformed record or an unknown version.
Record record_from_json(const nlohmann::json& j);

}  // namespace tunectl::log
