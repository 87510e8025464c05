// graph::Executor on hand-built graphs (no ONNX): results equal te::evaluate
// of the subgraphs chained by hand, the memory plan reuses buffers on a
// chain, a device target's kernels get device addresses only (in the CUDA
// emulator), and bad inputs are UserErrors naming the input.
#include <catch2/catch.hpp>

#include <random>

#include "backend/backend.h"
#include "graph/executor.h"
#include "ir/error.h"
#include "ops/elemwise.h"
#include "ops/matmul.h"
#include "support/foreign_cpu.h"
#include "te/evaluate.h"

using namespace tunectl;
using Catch::Matchers::Contains;

namespace {

constexpr int64_t kWidth = 48;

// Appends a subgraph out = relu(in @ weight) [+ residual], with placeholders
// named after the graph values they read.
void add_layer(graph::Graph& g, std::vector<graph::Subgraph>& sgs, const std::string& in, const std::string& weight,
               const std::string& out, const std::string& residual = "") {
  auto x = te::placeholder(in, {1, kWidth});
  auto w = te::placeholder(weight, {kWidth, kWidth}, ir::DType::Float32, true);  // a graph constant
  te::Tensor y = ops::relu(ops::matmul(x, w), out);
  if (!residual.empty()) y = ops::add(y, te::placeholder(residual, {1, kWidth}), out);
  graph::Subgraph sg;
  sg.name = "layer_" + out;
  sg.dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{y});
  for (const auto& p : sg.dag->placeholders()) sg.inputs.push_back(p->name);
  sg.outputs = {out};
  sgs.push_back(sg);
  g.values[out] = {ir::DType::Float32, {1, kWidth}};
}

runtime::NDArray random_array(std::vector<int64_t> shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  runtime::NDArray a(ir::DType::Float32, std::move(shape));
  a.fill_random(rng, -0.5, 0.5);
  return a;
}

// x -> h0 -> h1 -> ... -> h{n-1} (the output); layer i >= 2 adds h{i-2} when
// residual is set, which stretches lifetimes across two subgraphs.
struct Chain {
  graph::Graph graph;
  std::vector<graph::Subgraph> subgraphs;
};

Chain make_chain(int layers, bool residual) {
  Chain c;
  c.graph.values["x"] = {ir::DType::Float32, {1, kWidth}};
  c.graph.inputs = {"x"};
  std::string prev = "x";
  for (int i = 0; i < layers; ++i) {
    const std::string w = "w" + std::to_string(i), h = "h" + std::to_string(i);
    c.graph.values[w] = {ir::DType::Float32, {kWidth, kWidth}};
    c.graph.constants[w] = random_array({kWidth, kWidth}, 100 + i);
    add_layer(c.graph, c.subgraphs, prev, w, h, residual && i >= 2 ? "h" + std::to_string(i - 2) : "");
    prev = h;
  }
  c.graph.outputs = {prev};
  return c;
}

// The same computation with the reference evaluator, one subgraph at a time.
std::map<std::string, runtime::NDArray> evaluate_by_hand(const Chain& c, const runtime::NDArray& x) {
  std::map<std::string, runtime::NDArray> values = c.graph.constants;
  values["x"] = x;
  for (const auto& sg : c.subgraphs) {
    std::vector<runtime::NDArray> ins;
    for (const auto& name : sg.inputs) ins.push_back(values.at(name));
    auto outs = te::evaluate(*sg.dag, ins);
    for (size_t i = 0; i < outs.size(); ++i) values[sg.outputs[i]] = outs[i];
  }
  return values;
}

void check_matches_reference(const Chain& c, graph::ExecutorOptions options = {}) {
  runtime::NDArray x = random_array({1, kWidth}, 7);
  graph::Executor exec(c.graph, c.subgraphs, options);
  auto expected = evaluate_by_hand(c, x);
  // Twice: the second run reuses the arena the first one left dirty.
  for (int run = 0; run < 2; ++run) {
    auto outputs = exec.run({{"x", x}});
    REQUIRE(outputs.size() == 1);
    const std::string& name = c.graph.outputs[0];
    runtime::CompareResult r = runtime::all_close(outputs.at(name), expected.at(name), 1e-4, 1e-6);
    INFO(r.message);
    CHECK(r.ok);
  }
}

}  // namespace

TEST_CASE("executor: a chain of subgraphs equals te::evaluate chained by hand", "[graph][executor][cpu]") {
  check_matches_reference(make_chain(5, false));
}

TEST_CASE("executor: residual connections keep their buffers alive", "[graph][executor][cpu]") {
  check_matches_reference(make_chain(6, true));
}

TEST_CASE("executor: prepacked weights are packed once at load and give the same results", "[graph][executor][cpu]") {
  // Stages x, w, matmul, relu; then x, w, w.local (prepacked at j.0), matmul, relu.
  graph::ExecutorOptions options;
  options.schedule = [](const std::shared_ptr<const te::ComputeDAG>& dag) {
    schedule::State s = schedule::State::initial(dag);
    s.apply(schedule::SplitStep{2, 1, kWidth, {16}, true});
    s.apply(schedule::ReorderStep{2, {1, 0, 2, 3}});
    s.apply(schedule::CacheReadStep{1, "local", {2}});
    s.apply(schedule::ComputeAtStep{2, 3, 0});
    s.apply(schedule::PrepackStep{2});
    return s;
  };
  check_matches_reference(make_chain(4, false), options);
}

TEST_CASE("executor: emulated kernels of another CPU run compiled for this CPU", "[graph][executor][cpu]") {
  // The kernels cannot run as built, and emulation compiles the same
  // program for this CPU.
  const std::optional<tunectl::testing::ForeignCpu> foreign = tunectl::testing::foreign_cpu();
  REQUIRE(foreign.has_value());
  graph::ExecutorOptions options;
  options.backend = backend::make_backend(backend::resolve_target(foreign->target));
  REQUIRE(options.backend->why_not_here().has_value());
  options.emulate = true;
  options.schedule = [](const std::shared_ptr<const te::ComputeDAG>& dag) {
    schedule::State s = schedule::State::initial(dag);
    s.apply(schedule::SplitStep{2, 1, kWidth, {16}, true});
    s.apply(schedule::ReorderStep{2, {1, 0, 3, 2}});
    s.apply(schedule::AnnotationStep{2, 0, "parallel"});
    s.apply(schedule::AnnotationStep{2, 3, "vectorize"});
    s.apply(schedule::CacheReadStep{1, "local", {2}});
    s.apply(schedule::ComputeAtStep{2, 3, 0});
    s.apply(schedule::PrepackStep{2});
    return s;
  };
  check_matches_reference(make_chain(4, true), options);
}

TEST_CASE("executor: a device target's kernels run on the model kept in device memory", "[graph][executor][cuda]") {
  // The emulated CUDA kernels check that every argument lies in (emulated)
  // device memory: constants uploaded once, the arena and the input there.
  graph::ExecutorOptions options;
  options.backend = backend::make_backend(backend::resolve_target("cuda -arch=sm_80"));
  options.emulate = true;
  check_matches_reference(make_chain(5, true), options);

  Chain c = make_chain(1, false);
  c.graph.outputs = {"h0", "x", "w0"};
  graph::Executor exec(c.graph, c.subgraphs, options);
  runtime::NDArray x = random_array({1, kWidth}, 3);
  auto outputs = exec.run({{"x", x}});
  CHECK(runtime::all_close(outputs.at("x"), x, 0, 0).ok);
  CHECK(runtime::all_close(outputs.at("w0"), c.graph.constants.at("w0"), 0, 0).ok);
}

TEST_CASE("executor: an emulated device kernel refuses a host address", "[graph][executor][cuda]") {
  auto cuda = std::shared_ptr<const backend::Backend>(backend::make_backend(backend::resolve_target("cuda -arch=sm_80")));
  Chain c = make_chain(1, false);
  const auto& dag = c.subgraphs[0].dag;
  auto kernel = backend::emulated_kernel(cuda, lower::lower(cuda->default_schedule(dag), "layer", cuda->target()));
  REQUIRE(kernel->device_memory() != nullptr);
  runtime::NDArray x = random_array({1, kWidth}, 1), y(ir::DType::Float32, {1, kWidth});
  std::vector<void*> args{x.raw(), c.graph.constants.at("w0").raw(), y.raw()};
  CHECK_THROWS_WITH(kernel->launch(args.data()), Contains("argument 0 (") && Contains("is not in device memory"));
}

TEST_CASE("executor: the memory plan reuses buffers along a chain", "[graph][executor][cpu]") {
  Chain c = make_chain(6, false);
  graph::Executor exec(c.graph, c.subgraphs);
  const size_t one = kWidth * sizeof(float);  // 192 bytes: already 64-byte aligned
  CHECK(exec.unplanned_bytes() == 6 * one);
  // h_i lives from layer i to layer i + 1, so two buffers take turns.
  CHECK(exec.planned_bytes() == 2 * one);
  CHECK(exec.planned_bytes() < exec.unplanned_bytes());
}

TEST_CASE("executor: profile names every subgraph with its median time over the runs", "[graph][executor][cpu]") {
  Chain c = make_chain(3, false);
  graph::ExecutorOptions options;
  options.profile = true;
  graph::Executor exec(c.graph, c.subgraphs, options);
  REQUIRE(exec.profile().size() == 3);
  for (const graph::SubgraphTime& t : exec.profile()) CHECK(t.seconds == 0);  // no run yet
  for (int run = 0; run < 3; ++run) exec.run({{"x", random_array({1, kWidth}, 1)}});
  REQUIRE(exec.profile().size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(exec.profile()[i].name == c.subgraphs[i].name);
    CHECK(exec.profile()[i].seconds > 0);
  }
}

TEST_CASE("executor: kernels timed alone, in run order, leave a model that runs as before", "[graph][executor][cpu]") {
  Chain c = make_chain(4, true);
  graph::Executor exec(c.graph, c.subgraphs);
  const runtime::NDArray x = random_array({1, kWidth}, 2);
  runtime::TimingOptions timing;
  timing.repeats = 3;
  timing.min_repeat_seconds = 0;
  // Before any run: the graph inputs are bound by the run it starts with.
  const std::vector<graph::SubgraphTime> alone = exec.time_kernels_alone({{"x", x}}, timing);
  REQUIRE(alone.size() == c.subgraphs.size());
  for (size_t i = 0; i < alone.size(); ++i) {
    CHECK(alone[i].name == c.subgraphs[i].name);
    CHECK(alone[i].seconds > 0);
  }
  // Every kernel called again and again on the arena's values: a run after
  // it computes what the reference does.
  const std::string& name = c.graph.outputs[0];
  runtime::CompareResult r = runtime::all_close(exec.run({{"x", x}}).at(name), evaluate_by_hand(c, x).at(name), 1e-4, 1e-6);
  INFO(r.message);
  CHECK(r.ok);
}

TEST_CASE("executor: a graph output that is a graph input or a constant is copied out", "[graph][executor][cpu]") {
  Chain c = make_chain(1, false);
  c.graph.outputs = {"h0", "x", "w0"};
  graph::Executor exec(c.graph, c.subgraphs);
  runtime::NDArray x = random_array({1, kWidth}, 3);
  auto outputs = exec.run({{"x", x}});
  CHECK(runtime::all_close(outputs.at("x"), x, 0, 0).ok);
  CHECK(runtime::all_close(outputs.at("w0"), c.graph.constants.at("w0"), 0, 0).ok);
  CHECK(outputs.at("x").raw() != x.raw());  // a copy, not the caller's array
}

TEST_CASE("executor: bad inputs are user errors naming the input", "[graph][executor][error]") {
  Chain c = make_chain(2, false);
  graph::Executor exec(c.graph, c.subgraphs);
  runtime::NDArray x = random_array({1, kWidth}, 1);
  CHECK_THROWS_AS((exec.run({})), UserError);
  CHECK_THROWS_WITH((exec.run({})),
                    Contains("missing input 'x'"));
  CHECK_THROWS_AS((exec.run({{"x", x}, {"y", x}})), UserError);
  CHECK_THROWS_WITH((exec.run({{"x", x}, {"y", x}})),
                    Contains("unknown input 'y'"));
  CHECK_THROWS_AS((exec.run({{"x", random_array({2, kWidth}, 1)}})), UserError);
  CHECK_THROWS_WITH((exec.run({{"x", random_array({2, kWidth}, 1)}})),
                    Contains("input 'x' has shape [2x48]"));
  CHECK_THROWS_AS((exec.run({{"x", runtime::NDArray(ir::DType::Int64, {1, kWidth})}})), UserError);
  CHECK_THROWS_WITH((exec.run({{"x", runtime::NDArray(ir::DType::Int64, {1, kWidth})}})),
                    Contains("input 'x' has dtype int64"));
}
