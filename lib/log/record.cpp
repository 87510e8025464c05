#include "log/record.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/error.h"

namespace tunectl::log {

using nlohmann::json;

namespace {

[[noreturn]] void field_fail(const std::string& field, const std::string& what) {
  user_fail("log record: field '", field, "': ", what);
}

// obj[name], checked for presence and type; `prefix` makes the reported
// field a path ("result.costs").
const json& field(const json& obj, const std::string& prefix, const char* name, const char* expected,
                  bool (json::*has_type)() const noexcept) {
  auto it = obj.find(name);
  if (it == obj.end()) field_fail(prefix + name, std::string("missing (expected ") + expected + ")");
  if (!((*it).*has_type)()) field_fail(prefix + name, std::string("expected ") + expected + ", got " + it->type_name());
  return *it;
}

bool valid_cost(double c) { return std::isfinite(c) && c >= 0; }

// What makes costs and error kind consistent, or "" when they are.
std::string costs_problem(const MeasureResult& r) {
  if (!std::all_of(r.costs.begin(), r.costs.end(), valid_cost)) return "costs must be finite and non-negative";
  if (r.ok() && r.costs.empty()) return "an ok record needs at least one cost";
  if (!r.ok() && !r.costs.empty()) return std::string("an error record (") + to_string(r.error) + ") has no costs";
  return "";
}

TaskInfo task_from_json(const json& j) {
  TaskInfo t;
  t.workload_key = field(j, "task.", "key", "a string", &json::is_string).get<std::string>();
  t.name = field(j, "task.", "name", "a string", &json::is_string).get<std::string>();
  t.target = field(j, "task.", "target", "a string", &json::is_string).get<std::string>();
  t.dag = field(j, "task.", "dag", "an object", &json::is_object);
  return t;
}

MeasureResult result_from_json(const json& j) {
  MeasureResult r;
  const json& costs = field(j, "result.", "costs", "an array of numbers", &json::is_array);
  for (const json& c : costs) {
    if (!c.is_number()) field_fail("result.costs", "expected an array of numbers");
    r.costs.push_back(c.get<double>());
  }
  const std::string error = field(j, "result.", "error", "a string", &json::is_string).get<std::string>();
  try {
    r.error = measure_error_from_string(error);
  } catch (const UserError& e) {
    field_fail("result.error", e.what());
  }
  r.error_message = field(j, "result.", "msg", "a string", &json::is_string).get<std::string>();
  r.build_seconds = field(j, "result.", "build_s", "a number", &json::is_number).get<double>();
  r.run_seconds = field(j, "result.", "run_s", "a number", &json::is_number).get<double>();
  r.timestamp = field(j, "result.", "time", "an integer", &json::is_number_integer).get<int64_t>();
  if (j.contains("estimated"))
    r.estimated = field(j, "result.", "estimated", "a boolean", &json::is_boolean).get<bool>();
  if (j.contains("runoff")) r.runoff = field(j, "result.", "runoff", "a boolean", &json::is_boolean).get<bool>();
  if (std::string problem = costs_problem(r); !problem.empty()) field_fail("result.costs", problem);
  return r;
}

}  // namespace

std::string MeasureResult::error_text() const {
  if (ok()) return "";
  return error_message.empty() ? to_string(error) : std::string(to_string(error)) + ": " + error_message;
}

const char* to_string(MeasureError e) {
  switch (e) {
#define TUNECTL_ERROR_NAME(name, text) \
  case MeasureError::name:             \
    return text;
    TUNECTL_MEASURE_ERRORS(TUNECTL_ERROR_NAME)
#undef TUNECTL_ERROR_NAME
  }
  internal_fail("MeasureError value ", static_cast<int>(e), " out of range");
}

MeasureError measure_error_from_string(const std::string& s) {
#define TUNECTL_ERROR_PARSE(name, text) \
  if (s == text) return MeasureError::name;
  TUNECTL_MEASURE_ERRORS(TUNECTL_ERROR_PARSE)
#undef TUNECTL_ERROR_PARSE
  std::string known;
#define TUNECTL_ERROR_LIST(name, text) known += std::string(known.empty() ? "" : ", ") + text;
  TUNECTL_MEASURE_ERRORS(TUNECTL_ERROR_LIST)
#undef TUNECTL_ERROR_LIST
  user_fail("unknown measure error kind '", s, "' (known: ", known, ")");
}

double MeasureResult::median_cost() const {
  if (!ok() || costs.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted = costs;
  std::sort(sorted.begin(), sorted.end());
  size_t mid = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

int record_version(const json& j) {
  user_check(j.is_object(), "log record: expected a JSON object, got ", j.type_name());
  const json& v = field(j, "", "v", "the format version, an integer", &json::is_number_integer);
  // Compare as a wide integer first: a huge "v" must not wrap into range.
  // (the parser stores non-negative integers as unsigned).
  int64_t version =
      v.is_number_unsigned()
          ? static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), std::numeric_limits<int64_t>::max()))
          : v.get<int64_t>();
  user_check(version >= 1, "log record: format version ", version, " is not valid (this tunectl reads 1 to ",
             kLogVersion, ")");
  user_check(version <= kLogVersion, "log format version ", version, " is newer than this tunectl reads (", kLogVersion,
             "); upgrade tunectl");
  return static_cast<int>(version);
}

json record_to_json(const Record& r) {
  std::string problem = costs_problem(r.result);
  internal_check(problem.empty(), "writing a log record of task ", r.task.workload_key, ": ", problem);
  internal_check(r.task.dag.is_object(), "log record of task ", r.task.workload_key, " has no DAG object");
  // Always the current format: a record read from an older version was
  // upgraded when it was read.
  json result{{"costs", r.result.costs},
              {"error", to_string(r.result.error)},
              {"msg", r.result.error_message},
              {"build_s", r.result.build_seconds},
              {"run_s", r.result.run_seconds},
              {"time", r.result.timestamp}};
  if (r.result.estimated) result["estimated"] = true;
  if (r.result.runoff) result["runoff"] = true;
  return json{
      {"v", kLogVersion},
      {"task", {{"key", r.task.workload_key}, {"name", r.task.name}, {"target", r.task.target}, {"dag", r.task.dag}}},
      {"steps", schedule::steps_to_json(r.steps)},
      {"result", result}};
}

Record record_from_json(const json& j) {
  Record r;
  // Version 1 reads as version 2, which only added a step and a DAG field.
  r.version = record_version(j);
  r.task = task_from_json(field(j, "", "task", "an object", &json::is_object));
  const json& steps = field(j, "", "steps", "an array of steps", &json::is_array);
  try {
    r.steps = schedule::steps_from_json(steps);
  } catch (const UserError& e) {
    field_fail("steps", e.what());
  }
  r.result = result_from_json(field(j, "", "result", "an object", &json::is_object));
  return r;
}

}  // namespace tunectl::log
