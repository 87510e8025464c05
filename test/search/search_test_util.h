// Shared by the search tests: the property every state the search produces
// must have (it lowers, compiles and computes the reference), and what a
// lowered program allocates.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "backend/backend.h"
#include "check/reference_check.h"
#include "codegen/llvm/llvm_codegen.h"
#include "ir/functor.h"
#include "lower/lower.h"
#include "schedule/state.h"

namespace tunectl::test {

inline void check_computes_reference(const te::ComputeDAG& dag, const schedule::State& state, uint64_t seed) {
  INFO("steps: " << schedule::steps_to_json(state.history).dump());
  std::unique_ptr<runtime::Kernel> kernel = backend::host_backend()->build(lower::lower(state, "kernel"));
  check::CheckResult r = check::check_against_reference(
      dag, [&](const std::vector<runtime::NDArray*>& args) { kernel->pack_and_run(check::raw_pointers(args)); }, seed);
  INFO(r.message);
  CHECK(r.ok);
}

// Elements of each buffer allocated in a lowered function.
struct Allocations : ir::IRVisitor {
  std::map<std::string, int64_t> elements;
  void visit_Allocate(const ir::AllocateNode* op) override {
    elements[op->buffer->name] = op->buffer->num_elements();
    IRVisitor::visit_Allocate(op);
  }
};

}  // namespace tunectl::test
