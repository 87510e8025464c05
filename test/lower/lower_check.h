// Test support for lowering: runs a lowered State through the loop-IR
// interpreter on random inputs and compares with te's reference evaluator.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lower/lower.h"
#include "runtime/ndarray.h"
#include "schedule/state.h"
#include "te/compute_dag.h"

namespace tunectl::lower::test {

// Lowers state, interprets it on random inputs (seeded by seed) and returns
// an empty string when every output matches te::evaluate, else a message
// naming the output, the mismatch and the state.
std::string check_against_reference(const schedule::State& state, uint64_t seed = 1);

// The same for a function lowered for a GPU target, run in the GPU
// emulator (three random inputs); the message ends with the function.
std::string emulate_against_reference(const LoweredFunc& func, const schedule::State& state);

// What the GPU emulator throws running func on `out` (its one argument);
// "" when nothing.
std::string emulate_error(const LoweredFunc& func, runtime::NDArray& out);

// The DAG of an op from ops/registry.h, shared for State::initial.
std::shared_ptr<const te::ComputeDAG> op_dag(const std::string& name, const nlohmann::json& params);

}  // namespace tunectl::lower::test
