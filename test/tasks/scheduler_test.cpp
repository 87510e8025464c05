// tasks::TaskScheduler on scripted synthetic tasks (no measurement): task i's
// best cost after r rounds is a_i + b_i / r, so the improvement each round can
// still bring is known, and the scheduler's choices can be judged exactly.
// Also tasks::similarity_key on real op DAGs.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>

#include "ir/error.h"
#include "ops/registry.h"
#include "tasks/scheduler.h"
#include "tasks/similarity.h"

using namespace tunectl;
using namespace tunectl::tasks;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Scripted {
  double weight;
  double a;  // the cost no tuning removes (seconds)
  double b;  // the part tuning removes, like b / rounds
  std::string key;
  double flops = 0;
};

double scripted_cost(const Scripted& s, int rounds_done) { return s.a + s.b / (rounds_done + 1); }

TaskScheduler make(const std::vector<Scripted>& script, SchedulerParams p) {
  std::vector<SchedulerTask> tasks;
  for (const auto& s : script) tasks.push_back({s.weight, s.flops, s.key});
  return TaskScheduler(tasks, p);
}

// Runs up to `rounds` rounds; returns the tasks picked, in order.
std::vector<int> run(TaskScheduler& ts, const std::vector<Scripted>& script, int rounds) {
  std::vector<int> picks;
  for (int k = 0; k < rounds; ++k) {
    int i = ts.next_task();
    if (i < 0) break;
    picks.push_back(i);
    ts.report_round(i, scripted_cost(script[i], ts.rounds(i)));
  }
  return picks;
}

SchedulerParams greedy(SchedulePolicy policy = SchedulePolicy::Gradient) {
  SchedulerParams p;
  p.policy = policy;
  p.epsilon = 0;
  return p;
}

// Weighted potential w * b: task 2 (4 x 5 ms) > task 0 (1 x 10 ms) > task 1
// (1 x 1 ms); the irreducible parts are equal.
const std::vector<Scripted> kThree = {
    {1, 1e-3, 10e-3, "t0"},
    {1, 1e-3, 1e-3, "t1"},
    {4, 1e-3, 5e-3, "t2"},
};

}  // namespace

TEST_CASE("warm-up gives every task one round in order first", "[unit][tasks]") {
  for (auto policy : {SchedulePolicy::Gradient, SchedulePolicy::RoundRobin}) {
    SchedulerParams p;
    p.policy = policy;
    p.epsilon = 1;  // random picks must not disturb warm-up
    TaskScheduler ts = make(kThree, p);
    CHECK(ts.warming_up());
    CHECK(ts.objective() == kInf);
    std::vector<int> picks = run(ts, kThree, 3);
    CHECK(picks == std::vector<int>{0, 1, 2});
    CHECK_FALSE(ts.warming_up());
    CHECK(std::isfinite(ts.objective()));
  }
}

TEST_CASE("gradient gives more rounds to larger weighted potential", "[unit][tasks]") {
  TaskScheduler ts = make(kThree, greedy());
  run(ts, kThree, 60);
  INFO("rounds " << ts.rounds(0) << " " << ts.rounds(1) << " " << ts.rounds(2));
  CHECK(ts.rounds(0) + ts.rounds(1) + ts.rounds(2) == 60);
  CHECK(ts.rounds(2) > ts.rounds(0));
  CHECK(ts.rounds(0) > ts.rounds(1));
  for (int i = 0; i < 3; ++i) CHECK(ts.status(i) == TaskStatus::Active);
}

TEST_CASE("gradient lowers the objective faster than round-robin", "[unit][tasks]") {
  // One heavy task with much to gain beside light ones with little.
  const std::vector<Scripted> script = {
      {8, 1e-3, 20e-3, "heavy"},
      {1, 1e-3, 1e-3, "l1"},
      {1, 2e-3, 1e-3, "l2"},
      {1, 1e-3, 2e-3, "l3"},
  };
  for (int rounds : {12, 24, 48}) {
    TaskScheduler grad = make(script, greedy());
    TaskScheduler rr = make(script, greedy(SchedulePolicy::RoundRobin));
    run(grad, script, rounds);
    run(rr, script, rounds);
    INFO(rounds << " rounds: gradient " << grad.objective() << " round-robin " << rr.objective());
    CHECK(grad.objective() < rr.objective());
  }
}

TEST_CASE("round-robin cycles and gives equal rounds", "[unit][tasks]") {
  TaskScheduler ts = make(kThree, greedy(SchedulePolicy::RoundRobin));
  std::vector<int> picks = run(ts, kThree, 8);
  CHECK(picks == std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1});
  run(ts, kThree, 29);
  int lo = std::min({ts.rounds(0), ts.rounds(1), ts.rounds(2)});
  int hi = std::max({ts.rounds(0), ts.rounds(1), ts.rounds(2)});
  CHECK(lo + 1 >= hi);
  CHECK(ts.rounds(0) + ts.rounds(1) + ts.rounds(2) == 37);
}

TEST_CASE("a task without a valid program after warm-up is dropped", "[unit][tasks]") {
  for (auto policy : {SchedulePolicy::Gradient, SchedulePolicy::RoundRobin}) {
    TaskScheduler ts = make(kThree, greedy(policy));
    for (int k = 0; k < 20; ++k) {
      int i = ts.next_task();
      REQUIRE(i >= 0);
      if (k >= 3) CHECK(i != 1);
      ts.report_round(i, i == 1 ? kInf : scripted_cost(kThree[i], ts.rounds(i)));
    }
    CHECK(ts.dropped(1));
    CHECK(ts.rounds(1) == 1);
    CHECK(ts.best_cost(1) == kInf);
    CHECK(ts.objective() == kInf);  // the model has no kernel for task 1
    CHECK(ts.status(0) == TaskStatus::Active);
  }
}

TEST_CASE("early stopping stops a flat task, round limit finishes tasks", "[unit][tasks]") {
  const std::vector<Scripted> script = {
      {1, 2e-3, 0, "flat"},  // no round ever improves it
      {1, 1e-3, 4e-3, "falling"},
  };
  SchedulerParams p = greedy(SchedulePolicy::RoundRobin);
  p.early_stopping_rounds = 2;
  TaskScheduler ts = make(script, p);
  run(ts, script, 20);
  // Round 1 finds its first program; rounds 2 and 3 bring nothing.
  CHECK(ts.status(0) == TaskStatus::Stopped);
  CHECK(ts.rounds(0) == 3);
  CHECK(ts.status(1) == TaskStatus::Active);
  CHECK(ts.rounds(1) == 17);

  SchedulerParams q = greedy();
  q.max_rounds_per_task = 3;
  TaskScheduler limited = make(kThree, q);
  std::vector<int> picks = run(limited, kThree, 100);
  CHECK(picks.size() == 9);
  CHECK(limited.next_task() == -1);
  for (int i = 0; i < 3; ++i) CHECK(limited.status(i) == TaskStatus::Finished);

  TaskScheduler empty({}, greedy());
  CHECK(empty.next_task() == -1);
  CHECK(empty.objective() == 0);
}

TEST_CASE("restore skips warm-up and the gradient uses the history", "[unit][tasks]") {
  TaskScheduler ts = make(kThree, greedy());
  ts.restore(0, {8e-3, 9e-3, 4e-3, 3e-3});  // a worse round keeps the best so far
  CHECK(ts.history(0) == std::vector<double>{8e-3, 8e-3, 4e-3, 3e-3});
  CHECK(ts.rounds(0) == 4);
  CHECK(ts.best_cost(0) == 3e-3);
  // Warm-up covers only the tasks not restored.
  CHECK(run(ts, kThree, 2) == std::vector<int>{1, 2});
  // backward = (3 - 8) / 3 ms; g1 = 3 - 3/4 ms; forward = g1 - 3 ms.
  double expected = 1 * (0.2 * (3e-3 - 8e-3) / 3 + 0.8 * (-3e-3 / 4));
  CHECK(ts.gradient(0) == Approx(expected).epsilon(1e-12));

  TaskScheduler lost = make(kThree, greedy());
  lost.restore(1, {kInf, kInf});
  CHECK(lost.dropped(1));
  SchedulerParams p = greedy();
  p.early_stopping_rounds = 2;
  TaskScheduler flat = make(kThree, p);
  flat.restore(2, {5e-3, 5e-3, 5e-3});
  CHECK(flat.status(2) == TaskStatus::Stopped);
  CHECK(run(flat, kThree, 2) == std::vector<int>{0, 1});
  CHECK_THROWS_AS(flat.restore(0, {1e-3}), InternalError);
}

TEST_CASE("a similar task's FLOP/s makes a slow task look promising", "[unit][tasks]") {
  // Task 1 runs at 10 GFLOP/s after four flat rounds; task 0 has the same
  // structure and reached 1 TFLOP/s. Task 2 is unrelated and slower.
  auto schedule = [](const std::string& key_of_1) {
    TaskScheduler ts({{1, 1e9, "conv"}, {1, 1e9, key_of_1}, {1, 1e9, "dense"}}, greedy());
    ts.restore(0, {1e-3, 1e-3, 1e-3, 1e-3});
    ts.restore(1, {0.1, 0.1, 0.1, 0.1});
    ts.restore(2, {0.2, 0.2, 0.2, 0.2});
    return ts;
  };
  TaskScheduler alone = schedule("other");
  TaskScheduler similar = schedule("conv");
  // Alone: forward = -0.1 / 4. Similar: g2 = 2 * 1e9 / 1e12 s, forward = g2 - 0.1.
  CHECK(alone.gradient(1) == Approx(0.8 * (-0.1 / 4)));
  CHECK(similar.gradient(1) == Approx(0.8 * (2e-3 - 0.1)));
  CHECK(similar.gradient(2) == alone.gradient(2));
  CHECK(alone.next_task() == 2);
  CHECK(similar.next_task() == 1);
}

TEST_CASE("the scheduler is deterministic for a seed", "[unit][tasks]") {
  SchedulerParams p;
  p.epsilon = 0.3;
  p.seed = 7;
  TaskScheduler a = make(kThree, p);
  TaskScheduler b = make(kThree, p);
  std::vector<int> pa = run(a, kThree, 60);
  CHECK(pa == run(b, kThree, 60));
  p.seed = 8;
  TaskScheduler c = make(kThree, p);
  CHECK(pa != run(c, kThree, 60));

  // Exact ties go to the rng: two identical tasks, either may come first.
  const std::vector<Scripted> twins = {{1, 1e-3, 1e-3, "x"}, {1, 1e-3, 1e-3, "y"}};
  std::set<int> first_after_warmup;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    SchedulerParams q = greedy();
    q.seed = seed;
    TaskScheduler ts = make(twins, q);
    first_after_warmup.insert(run(ts, twins, 3).back());
  }
  CHECK(first_after_warmup == std::set<int>{0, 1});
}

TEST_CASE("epsilon = 1 picks every task about equally", "[unit][tasks]") {
  // Task 3 is one the gradient would starve: tiny weight, nothing to gain.
  std::vector<Scripted> script = kThree;
  script.push_back({1e-3, 1e-3, 0, "idle"});
  SchedulerParams p;
  p.epsilon = 1;
  p.seed = 3;
  TaskScheduler ts = make(script, p);
  run(ts, script, 404);
  for (int i = 0; i < 4; ++i) {
    INFO("task " << i);
    CHECK(ts.rounds(i) >= 60);
    CHECK(ts.rounds(i) <= 141);
  }
  TaskScheduler greedy_ts = make(script, greedy());
  run(greedy_ts, script, 404);
  CHECK(greedy_ts.rounds(3) < 10);
}

TEST_CASE("bad scheduler parameters are user errors", "[unit][tasks]") {
  SchedulerParams p;
  p.epsilon = 1.5;
  CHECK_THROWS_AS(TaskScheduler({}, p), UserError);
  p = {};
  p.window = 0;
  CHECK_THROWS_AS(TaskScheduler({}, p), UserError);
}

TEST_CASE("similarity_key groups equal structure across shapes", "[unit][tasks]") {
  te::ComputeDAG conv_a = ops::make_op_dag("conv2d", {{"C", 64}, {"H", 56}, {"W", 56}, {"K", 64}});
  te::ComputeDAG conv_b = ops::make_op_dag("conv2d", {{"C", 128}, {"H", 28}, {"W", 30}, {"K", 256}});
  te::ComputeDAG conv_relu = ops::make_op_dag("conv2d", {{"C", 64}, {"H", 56}, {"W", 56}, {"K", 64}, {"relu", true}});
  te::ComputeDAG mm_a = ops::make_op_dag("matmul", {{"M", 512}, {"N", 512}, {"K", 512}});
  te::ComputeDAG mm_b = ops::make_op_dag("matmul", {{"M", 128}, {"N", 3072}, {"K", 768}});

  CHECK(conv_a.workload_key() != conv_b.workload_key());
  CHECK(similarity_key(conv_a) == similarity_key(conv_b));
  CHECK(similarity_key(mm_a) == similarity_key(mm_b));
  CHECK(similarity_key(conv_a) != similarity_key(mm_a));
  CHECK(similarity_key(conv_a) != similarity_key(conv_relu));
  CHECK(similarity_key(conv_a).size() == 16);
  CHECK(similarity_key(ops::make_op_dag("relu", {{"shape", {1, 64, 56, 56}}})) ==
        similarity_key(ops::make_op_dag("relu", {{"shape", {2, 32, 7, 9}}})));
  // A rank change is a structural change.
  CHECK(similarity_key(ops::make_op_dag("relu", {{"shape", {1, 64, 56, 56}}})) !=
        similarity_key(ops::make_op_dag("relu", {{"shape", {64, 3136}}})));
}
