// Unit tests of the runtime thread pool behind parallel loops.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"

namespace {

struct SumJob {
  const std::vector<int64_t>* values;
  std::vector<int>* visits;  // iterations are disjoint between chunks
  std::atomic<int64_t> sum{0};
  std::atomic<int> calls{0};
};

void sum_body(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<SumJob*>(closure);
  job->calls.fetch_add(1);
  int64_t local = 0;
  for (int64_t i = begin; i < end; ++i) {
    local += (*job->values)[i];
    (*job->visits)[i] += 1;
  }
  job->sum.fetch_add(local);
}

int64_t parallel_sum(const std::vector<int64_t>& values, int* calls) {
  std::vector<int> visits(values.size(), 0);
  SumJob job{&values, &visits};
  tunectl_parallel_for(&sum_body, &job, static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < visits.size(); ++i)
    if (visits[i] != 1) FAIL("iteration " << i << " ran " << visits[i] << " times");
  if (calls) *calls = job.calls.load();
  return job.sum.load();
}

std::vector<int64_t> iota_values(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), int64_t{1});
  return v;
}

}  // namespace

TEST_CASE("parallel_for sums 1e6 values with every thread count", "[unit]") {
  auto values = iota_values(1000000);
  const int64_t expected = 1000000LL * 1000001LL / 2;
  for (int threads : {1, 2, 3, 5, 8}) {
    tunectl::runtime::set_num_threads(threads);
    CHECK(tunectl::runtime::num_threads() == threads);
    int calls = 0;
    CHECK(parallel_sum(values, &calls) == expected);
    CHECK(calls == (threads == 1 ? 1 : 2 * threads));  // two contiguous parts per worker of a pool
  }
  tunectl::runtime::set_num_threads(0);
}

TEST_CASE("parallel_for with fewer iterations than threads", "[unit]") {
  tunectl::runtime::set_num_threads(4);
  for (int64_t n : {0, 1, 2, 3, 4, 5, 7}) {
    auto values = iota_values(n);
    int calls = 0;
    CHECK(parallel_sum(values, &calls) == n * (n + 1) / 2);
    CHECK(calls == std::min<int64_t>(n, 4));
  }
  tunectl::runtime::set_num_threads(0);
}

namespace {

struct NestedJob {
  std::vector<std::atomic<int>>* cells;
  int64_t inner = 0;
};

struct InnerJob {
  std::vector<std::atomic<int>>* cells;
  int64_t row, inner;
};

void inner_body(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<InnerJob*>(closure);
  for (int64_t j = begin; j < end; ++j) (*job->cells)[job->row * job->inner + j].fetch_add(1);
}

void outer_body(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<NestedJob*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    InnerJob inner{job->cells, i, job->inner};
    tunectl_parallel_for(&inner_body, &inner, job->inner);
  }
}

}  // namespace

TEST_CASE("nested parallel_for runs the inner loop serially and completely", "[unit]") {
  tunectl::runtime::set_num_threads(3);
  const int64_t rows = 37, cols = 101;
  std::vector<std::atomic<int>> cells(rows * cols);
  NestedJob job{&cells, cols};
  tunectl_parallel_for(&outer_body, &job, rows);
  for (int64_t k = 0; k < rows * cols; ++k) REQUIRE(cells[k].load() == 1);
  tunectl::runtime::set_num_threads(0);
}

TEST_CASE("parallel_for from several caller threads at once", "[unit]") {
  tunectl::runtime::set_num_threads(2);
  auto values = iota_values(200000);
  const int64_t expected = 200000LL * 200001LL / 2;
  std::vector<int64_t> results(3, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      std::vector<int> visits(values.size(), 0);
      for (int rep = 0; rep < 20; ++rep) {
        SumJob job{&values, &visits};
        tunectl_parallel_for(&sum_body, &job, static_cast<int64_t>(values.size()));
        results[t] += job.sum.load();
      }
    });
  for (auto& c : callers) c.join();
  for (int64_t r : results) CHECK(r == 20 * expected);
  tunectl::runtime::set_num_threads(0);
}

TEST_CASE("a forked child runs parallel loops on a pool of its own", "[unit]") {
  tunectl::runtime::set_num_threads(2);
  const auto values = iota_values(100000);
  const int64_t expected = 100000LL * 100001 / 2;
  REQUIRE(parallel_sum(values, nullptr) == expected);  // the parent's pool now has live workers
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(20);  // a child stuck on the parent's dead workers dies instead of hanging the test
    std::vector<int> visits(values.size(), 0);
    SumJob job{&values, &visits};
    tunectl_parallel_for(&sum_body, &job, static_cast<int64_t>(values.size()));
    _exit(job.sum.load() == expected && job.calls.load() == 4 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

namespace {

// Records which thread ran each part; the first part a worker thread (not
// the caller) runs stalls, as a vCPU the host stops does. The caller's
// parts take 2 ms each, so that the worker starts before they are done.
struct StallJob {
  std::thread::id caller;
  std::atomic<bool> stalled{false};
  std::vector<std::atomic<int>>* visits;
  std::atomic<int> caller_parts{0}, worker_parts{0};
};

void stall_body(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<StallJob*>(closure);
  const bool on_caller = std::this_thread::get_id() == job->caller;
  (on_caller ? job->caller_parts : job->worker_parts).fetch_add(1);
  if (on_caller) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (!on_caller && !job->stalled.exchange(true)) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int64_t i = begin; i < end; ++i) (*job->visits)[i].fetch_add(1);
}

// One iteration per thread, recording the thread of each.
void thread_of_body(void* closure, int64_t begin, int64_t end) {
  auto* ids = static_cast<std::vector<std::thread::id>*>(closure);
  for (int64_t i = begin; i < end; ++i) (*ids)[i] = std::this_thread::get_id();
}

}  // namespace

TEST_CASE("a stalled worker's remaining parts are taken over, but one part per worker stays its own", "[unit]") {
  tunectl::runtime::set_num_threads(2);
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<std::atomic<int>> visits(800);
    StallJob job{std::this_thread::get_id()};
    job.visits = &visits;
    tunectl_parallel_for(&stall_body, &job, 800);
    for (auto& v : visits) REQUIRE(v.load() == 1);
    // 4 parts: the worker stalls in its first (if it started before the
    // caller had taken them all) and the caller runs the others.
    CHECK(job.worker_parts.load() + job.caller_parts.load() == 4);
    CHECK(job.caller_parts.load() >= 3);
  }
  // One part per worker: one iteration per thread stays one per thread,
  // however late the worker starts.
  for (int rep = 0; rep < 200; ++rep) {
    std::vector<std::thread::id> ids(2);
    tunectl_parallel_for(&thread_of_body, &ids, 2);
    REQUIRE(ids[0] == std::this_thread::get_id());
    REQUIRE(ids[1] != ids[0]);
  }
  tunectl::runtime::set_num_threads(0);
}
