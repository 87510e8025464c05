// A program of the search: a schedule state and what lowering made of it.
// Each candidate is lowered once, when it is drawn or first scored, and that
// one lowering serves everything after: the features the cost model scores,
// the measurement (the forked worker builds the lowered function it
// inherits) and the training rows once it is measured. Copies of a candidate
// share the lowering.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lower/lower.h"
#include "schedule/state.h"
#include "search/cost_model.h"

namespace tunectl::search {

struct Lowering {
  // Null when lowering rejected the state; `error` says why.
  std::shared_ptr<const lower::LoweredFunc> func;
  std::string error;
  std::vector<std::vector<float>> feature_rows;  // extract_features(*func); empty without func
};

struct Candidate {
  schedule::State state;
  std::shared_ptr<const Lowering> lowering;  // null until lower_candidate
};

// Lowers c.state for target and extracts its features unless that was done;
// adds the seconds lower() took to *lowering_seconds when given.
const Lowering& lower_candidate(Candidate& c, const target::Target& target, double* lowering_seconds = nullptr);

// Two states with the same key are the same program (their steps as JSON).
std::string state_key(const schedule::State& s);

// The cost model's view of a lowered candidate (no rows: lowering failed,
// it predicts as 0).
ProgramFeatures candidate_features(const Candidate& c, int task_id);

}  // namespace tunectl::search
