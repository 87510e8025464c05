// The GPU search's programs are correct by construction, checked without a
// GPU: for every operator in ops/ on its test shapes and every task of the
// shipped model and of tiny BERT and GPT-2, every GPU sketch, random annotations of
// each (the search's initial population and its fresh samples) and the
// program construction builds from them lower for CUDA, compile with NVRTC
// for sm_80 and sm_90, and compute the reference's output in the GPU
// emulator and as CUDA C run on the CPU (gpu_program_checks.h).
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <random>

#include "codegen/cuda/nvrtc.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "gpu_program_checks.h"
#include "ops/registry.h"
#include "per_op_tests.h"
#include "search/construct.h"
#include "search/sketch.h"
#include "support/gpu_schedules.h"
#include "support/property_cases.h"
#include "tasks/extract.h"

using namespace tunectl;

namespace {

// The full count; CI runs a share (support/property_cases.h).
constexpr int kAnnotationsPerSketch = 4;

// Every GPU sketch of dag and random annotations of each.
// rotation: which GPU arch a share run compiles for (check_compiles).
void check_dag(const std::shared_ptr<const te::ComputeDAG>& dag, uint64_t seed, size_t rotation) {
  std::string why;
  // The CUDA Toolkit is on every machine that runs the tests (README).
  if (!codegen::cuda::nvrtc_available(&why)) FAIL(why);
  const search::SearchParams params = search::for_target({}, schedule::cuda_target());
  const std::vector<schedule::State> sketches = search::generate_sketches(dag, params);
  REQUIRE(!sketches.empty());
  const int annotations = testing::property_cases(kAnnotationsPerSketch);
  std::vector<testing::GpuProgram> programs;
  std::mt19937_64 rng(seed);
  for (const schedule::State& sketch : sketches) {
    INFO("sketch:\n" << sketch.to_string());
    // Placeholder lengths of 1 are a program too: one thread per block.
    programs.push_back({sketch, lower::lower(sketch, "k" + std::to_string(programs.size()), params.target)});
    int annotated = 0;
    for (int k = 0; k < annotations; ++k) {
      std::optional<search::Candidate> c = search::annotate_randomly(sketch, rng, params);
      if (!c) continue;
      ++annotated;
      programs.push_back({c->state, lower::lower(c->state, "k" + std::to_string(programs.size()), params.target)});
    }
    // Annotation must find launchable programs, not give up.
    CHECK(annotated >= (annotations + 1) / 2);
  }
  // ... and so must construction, which walks on from such programs.
  const std::optional<search::Construction> constructed =
      search::construct_program(dag, params, seed, [](const lower::LoweredFunc&) { return true; });
  REQUIRE(constructed.has_value());
  programs.push_back({constructed->best.state, lower::lower(constructed->best.state, "constructed", params.target)});
  for (size_t i = 0; i < programs.size(); ++i) testing::check_in_emulator(*dag, programs[i], 1 + i);
  testing::check_on_host(*dag, programs);
  testing::check_compiles(programs, rotation);
}

void check_op(const std::string& op) {
  uint64_t seed = 7000;
  // Each op starts the arch rotation somewhere else (ops with one shape).
  size_t rotation = std::hash<std::string>{}(op);
  for (const auto& config : ops::test_configs(op)) {
    INFO(op << " " << config.dump());
    check_dag(std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, config)), seed++, rotation++);
  }
}

const bool registered = testing::register_per_op_tests(
    "GPU sketches and annotations compile and compute the reference: ", "[gpu-emulator][property][slow]", check_op);

}  // namespace

namespace {

void check_model_tasks(const std::filesystem::path& model, uint64_t seed) {
  // Partitioned as for a GPU target (cmd/model_layout.cpp).
  const std::vector<tasks::Task> tasks = tasks::extract_tasks(
      graph::partition(graph::store_split_inputs(graph::simplify_graph(graph::import_onnx(model.string())))));
  REQUIRE(tasks.size() >= 3);
  for (const tasks::Task& t : tasks) {
    INFO(model.filename().string() << ": " << t.name);
    check_dag(t.dag, seed, seed);
    ++seed;
  }
}

}  // namespace

TEST_CASE("GPU sketches and annotations of the shipped model's tasks compute the reference", "[gpu-emulator][property][slow]") {
  check_model_tasks(std::filesystem::path(TUNECTL_SOURCE_DIR) / "models" / "small_cnn.onnx", 8000);
}

// Layer norms, softmax and GELU, and matmuls read through a reshape and
// transpose (the Q, K and V projections, the attention output).
TEST_CASE("GPU sketches and annotations of tiny BERT's tasks compute the reference", "[gpu-emulator][property][slow]") {
  check_model_tasks(std::filesystem::path(TUNECTL_SOURCE_DIR) / "models" / "transformers" / "bert_tiny.onnx", 9000);
}

// GPT-2's Q/K/V projection split three ways (its own copy kernel on the
// GPU), the attention mask, the tanh GELU.
TEST_CASE("GPU sketches and annotations of tiny GPT-2's tasks compute the reference", "[gpu-emulator][property][slow]") {
  check_model_tasks(std::filesystem::path(TUNECTL_SOURCE_DIR) / "models" / "transformers" / "gpt2_tiny.onnx", 9500);
}
