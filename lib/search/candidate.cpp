#include "search/candidate.h"

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "schedule/steps.h"
#include "search/features.h"

namespace tunectl::search {

std::string state_key(const schedule::State& s) { return schedule::steps_to_json(s.history).dump(); }

const Lowering& lower_candidate(Candidate& c, const target::Target& target, double* lowering_seconds) {
  if (c.lowering) return *c.lowering;
  auto lowering = std::make_shared<Lowering>();
  const auto start = std::chrono::steady_clock::now();
  // The rows of a double-buffered kernel come from its form before the
  // pipelining (extract_features).
  std::optional<lower::LoweredFunc> single_buffered, before;
  const auto keep_single_buffered = [&](std::string_view pass, const lower::LoweredFunc& f) {
    if (f.double_buffered.empty()) return;  // the common case copies nothing
    if (pass == "double_buffer") single_buffered = before;
    before = f;
  };
  try {
    lowering->func =
        std::make_shared<const lower::LoweredFunc>(lower::lower(c.state, "kernel", target, keep_single_buffered));
  } catch (const UserError& e) {
    lowering->error = e.what();
  }
  if (lowering_seconds != nullptr)
    *lowering_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (lowering->func) {
    lowering->feature_rows = single_buffered ? extract_features(*single_buffered, target, lowering->func.get())
                                             : extract_features(*lowering->func, target);
  }
  c.lowering = std::move(lowering);
  return *c.lowering;
}

ProgramFeatures candidate_features(const Candidate& c, int task_id) {
  internal_check(c.lowering != nullptr, "features of a candidate that was never lowered");
  return {task_id, c.lowering->feature_rows};
}

}  // namespace tunectl::search
