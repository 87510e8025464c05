// A CPU kernel cut at its root stages (lower/split_stages.h) and each stage
// timed (measure/stage_profile.h): the parts, run in order, compute what
// the kernel computes, and each has a time.
#include <catch2/catch.hpp>

#include <memory>

#include "backend/backend.h"
#include "ir/error.h"
#include "lower/split_stages.h"
#include "measure/stage_profile.h"
#include "ops/registry.h"
#include "schedule/state.h"

using namespace tunectl;

namespace {

// Softmax under the default schedule: three root stages (the row maxima
// and the sums in buffers of their own, then the output), its rows split
// across the threads.
lower::LoweredFunc parallel_softmax(const backend::Backend& backend) {
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("softmax", {{"shape", {64, 1000}}}));
  schedule::State s = schedule::State::initial(dag);
  for (int i = 1; i < static_cast<int>(s.stages.size()); ++i)
    s.apply(schedule::AnnotationStep{i, 0, "parallel"});
  return lower::lower(s, "softmax", backend.target());
}

}  // namespace

TEST_CASE("stage split: each root stage a kernel, the buffers between them arguments", "[cpu]") {
  const std::shared_ptr<const backend::Backend> backend = backend::host_backend();
  const lower::LoweredFunc func = parallel_softmax(*backend);
  const lower::SplitKernel split = lower::split_root_stages(func);
  REQUIRE(split.parts.size() == 3);
  REQUIRE(split.shared.size() == 2);
  CHECK(split.shared[0]->name == "softmax_max");
  CHECK(split.shared[1]->name == "softmax_expsum");
  CHECK(split.parts[0].label == "softmax_max");
  CHECK(split.parts[1].label == "softmax_expsum");
  CHECK(split.parts[2].label == "softmax");
  for (const lower::StagePart& p : split.parts) {
    CHECK(p.func.args.size() == func.args.size() + 2);
    CHECK(p.func.packings.empty());
  }
}

TEST_CASE("stage profile: the stages run one by one compute the kernel's output, and each is timed", "[cpu]") {
  const std::shared_ptr<const backend::Backend> backend = backend::host_backend();
  const lower::LoweredFunc func = parallel_softmax(*backend);
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("softmax", {{"shape", {64, 1000}}}));
  measure::MeasureOptions options;
  options.backend = backend;
  options.cpu_calls = 3;
  const measure::StageProfile p = measure::profile_stages(*dag, func, options, 7);
  REQUIRE(p.stages.size() == 3);
  CHECK(p.stages[2].label == "softmax");
  for (const measure::StageTime& s : p.stages) CHECK(s.seconds > 0);
  CHECK(p.kernel_seconds > 0);
}

TEST_CASE("stage split: a GPU kernel is one launch and is not split", "[cpu]") {
  lower::LoweredFunc func;
  func.name = "k";
  func.lowered_for = target::TargetKind::Cuda;
  CHECK_THROWS_AS(lower::split_root_stages(func), UserError);
}
