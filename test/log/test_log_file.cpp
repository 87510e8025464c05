// The log file: writer/reader round trips, appends from threads and from a
// process killed with SIGKILL, one writer per log (the lock, refused or
// waited for), a write cut short by a file size limit, a truncated last line (skipped by the reader,
// cut off by the next writer), corrupt lines and newer versions reported
// with the file and line.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "ir/error.h"
#include "log/log_file.h"
#include "log/log_test_util.h"
#include "support/random_schedule.h"
#include "schedule/state.h"

namespace tunectl::log {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using nlohmann::json;
using testing::check_same_record;
using testing::op_dag;
using testing::ScratchDir;

// n records of random schedules of two tasks, every error kind among them.
std::vector<Record> sample_records(int n, uint64_t seed) {
  std::vector<testing::DagPtr> dags = {op_dag("matmul", {{"M", 24}, {"N", 20}, {"K", 18}}),
                                       op_dag("softmax", {{"shape", {7, 13}}})};
  std::mt19937_64 rng(seed);
  std::vector<Record> records;
  for (int i = 0; i < n; ++i) {
    const testing::DagPtr& dag = dags[i % dags.size()];
    Record r;
    r.task = testing::task_of(*dag, i % 2 ? "softmax_7x13" : "matmul_24x20x18");
    r.steps = schedule::random_schedule(dag, rng, 2 + i % 10).history;
    r.result = testing::random_result(testing::kAllErrors[i % std::size(testing::kAllErrors)], rng);
    records.push_back(std::move(r));
  }
  return records;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

void write_records(const std::string& path, const std::vector<Record>& records) {
  LogWriter writer(path);
  for (const Record& r : records) writer.append(r);
}

std::string line_of(const Record& r) { return record_to_json(r).dump() + "\n"; }

TEST_CASE("a log of 100 records reads back equal, in order, after appends", "[unit]") {
  ScratchDir dir;
  std::string path = dir.file("nested/folders/tune.log");  // the writer creates the folders
  std::vector<Record> records = sample_records(100, 11);
  write_records(path, std::vector<Record>(records.begin(), records.begin() + 60));
  {
    LogWriter again(path);  // appends, never truncates
    CHECK(again.path() == path);
    CHECK(again.warning().empty());
    for (size_t i = 60; i < records.size(); ++i) again.append(records[i]);
  }
  std::string text = read_text(path);
  CHECK(std::count(text.begin(), text.end(), '\n') == 100);
  LogContents log = read_log(path);
  CHECK(log.warnings.empty());
  REQUIRE(log.records.size() == records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    INFO("record " << i);
    check_same_record(log.records[i], records[i]);
  }
}

TEST_CASE("empty lines are ignored and an empty log has no records", "[unit]") {
  ScratchDir dir;
  std::vector<Record> records = sample_records(2, 5);
  write_text(dir.file("a.log"), "\n" + line_of(records[0]) + "\n  \n" + line_of(records[1]) + "\n");
  LogContents log = read_log(dir.file("a.log"));
  REQUIRE(log.records.size() == 2);
  check_same_record(log.records[1], records[1]);
  write_text(dir.file("empty.log"), "");
  CHECK(read_log(dir.file("empty.log")).records.empty());
}

TEST_CASE("a truncated last line is skipped with a warning and cut off by the next writer", "[unit]") {
  ScratchDir dir;
  std::string path = dir.file("tune.log");
  std::vector<Record> records = sample_records(17, 21);
  write_records(path, records);
  std::string text = read_text(path);
  size_t last_start = text.rfind('\n', text.size() - 2) + 1;
  write_text(path, text.substr(0, last_start + (text.size() - last_start) / 2));

  LogContents log = read_log(path);
  REQUIRE(log.records.size() == 16);
  check_same_record(log.records.back(), records[15]);
  REQUIRE(log.warnings.size() == 1);
  CHECK_THAT(log.warnings[0], Equals("skipped truncated last line 17 of " + path));

  // Resuming: the writer removes the fragment, so the next record does not
  // continue it and the log stays readable without warnings.
  {
    LogWriter writer(path);
    CHECK_THAT(writer.warning(), Contains("dropped a truncated last line") && Contains(path));
    writer.append(records[16]);
  }
  CHECK(read_text(path) == text);
  log = read_log(path);
  CHECK(log.warnings.empty());
  CHECK(log.records.size() == 17);
}

TEST_CASE("a last record lacking only its newline is read, and the writer ends it", "[unit]") {
  ScratchDir dir;
  std::string path = dir.file("tune.log");
  std::vector<Record> records = sample_records(3, 8);
  write_text(path, line_of(records[0]) + record_to_json(records[1]).dump());
  LogContents log = read_log(path);
  CHECK(log.warnings.empty());
  REQUIRE(log.records.size() == 2);
  check_same_record(log.records[1], records[1]);
  {
    LogWriter writer(path);
    CHECK_THAT(writer.warning(), Contains("added one"));
    writer.append(records[2]);
  }
  CHECK(read_log(path).records.size() == 3);
}

TEST_CASE("the writer refuses to append to a file that is not a tuning log", "[unit][error]") {
  ScratchDir dir;
  std::string path = dir.file("model.onnx");
  std::string content =
      "\x08\x07\x12\x07pytorch\n\x1a\x03"
      "1.0 binary without a final newline";
  write_text(path, content);
  CHECK_THAT(testing::user_error([&] { LogWriter writer(path); }), Contains("does not look like a tuning log"));
  CHECK(read_text(path) == content);
}

TEST_CASE("a corrupt line before the last one is an error naming file and line", "[unit][error]") {
  ScratchDir dir;
  std::string path = dir.file("tune.log");
  std::vector<Record> records = sample_records(4, 2);
  std::string half = line_of(records[2]).substr(0, 40);
  write_text(path, line_of(records[0]) + line_of(records[1]) + half + "\n" + line_of(records[3]));
  CHECK_THAT(testing::user_error([&] { read_log(path); }), Contains(path + ":3: corrupt log line: parse error"));

  // Complete JSON with a bad field is corrupt even as an unterminated last line.
  json bad = record_to_json(records[1]);
  bad["result"]["costs"] = "fast";
  write_text(path, line_of(records[0]) + bad.dump());
  CHECK_THAT(
      testing::user_error([&] { read_log(path); }),
      Equals(path +
             ":2: corrupt log line: log record: field 'result.costs': expected an array of numbers, got string"));
}

TEST_CASE("a record of a newer format version is refused naming file and line", "[unit][error]") {
  ScratchDir dir;
  std::string path = dir.file("tune.log");
  std::vector<Record> records = sample_records(3, 4);
  json newer = record_to_json(records[1]);
  newer["v"] = kLogVersion + 1;
  write_text(path, line_of(records[0]) + newer.dump() + "\n" + line_of(records[2]));
  CHECK_THAT(testing::user_error([&] { read_log(path); }),
             Equals(path + ":2: log format version 3 is newer than this tunectl reads (2); upgrade tunectl"));
}

TEST_CASE("a missing log or a folder is an error", "[unit][error]") {
  ScratchDir dir;
  CHECK_THAT(testing::user_error([&] { read_log(dir.file("nope.log")); }),
             Contains("cannot open tuning log '" + dir.file("nope.log") + "'"));
  std::filesystem::create_directories(dir.file("folder"));
  CHECK_THAT(testing::user_error([&] { read_log(dir.file("folder")); }), Contains("is a folder"));
}

TEST_CASE("appends from several threads give whole lines", "[unit]") {
  ScratchDir dir;
  std::string path = dir.file("tune.log");
  std::vector<Record> records = sample_records(8, 9);
  constexpr int kThreads = 4, kPerThread = 50;
  {
    LogWriter writer(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          Record r = records[(t + i) % records.size()];
          r.result.timestamp = t * 1000 + i;
          writer.append(r);
        }
      });
    for (auto& th : threads) th.join();
  }
  LogContents log = read_log(path);
  CHECK(log.warnings.empty());
  REQUIRE(log.records.size() == kThreads * kPerThread);
  std::vector<int64_t> stamps;
  for (const Record& r : log.records) stamps.push_back(r.result.timestamp);
  std::sort(stamps.begin(), stamps.end());
  for (int t = 0, k = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i) CHECK(stamps[k++] == t * 1000 + i);
}

// Forks a child that appends `n` records, tells the parent over a pipe, then
// either waits or keeps appending until the parent kills it with SIGKILL.
void append_then_get_killed(const std::string& path, const std::vector<Record>& records, size_t n,
                            bool keep_appending) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ready[0]);
    try {
      LogWriter writer(path);
      for (size_t i = 0; i < n; ++i) writer.append(records[i]);
      if (::write(ready[1], "x", 1) != 1) ::_exit(3);
      for (size_t i = n; keep_appending; ++i) writer.append(records[i % records.size()]);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(ready[1]);
  char c = 0;
  bool signalled = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (keep_appending) std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ::kill(pid, SIGKILL);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(signalled);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("a writer killed with SIGKILL leaves every record it appended", "[unit]") {
  ScratchDir dir;
  std::string path = dir.file("tune.log");
  std::vector<Record> records = sample_records(24, 13);
  append_then_get_killed(path, records, 13, /*keep_appending=*/false);
  LogContents log = read_log(path);
  CHECK(log.warnings.empty());
  REQUIRE(log.records.size() == 13);
  for (size_t i = 0; i < 13; ++i) check_same_record(log.records[i], records[i]);

  // Killed in the middle of appending: all lines before the kill are whole,
  // and the log can be appended to again.
  append_then_get_killed(path, records, 5, /*keep_appending=*/true);
  log = read_log(path);
  size_t count = log.records.size();
  CHECK(count >= 18);
  for (size_t i = 13; i < 18; ++i) check_same_record(log.records[i], records[i - 13]);
  LogWriter(path).append(records[0]);
  log = read_log(path);
  CHECK(log.warnings.empty());
  CHECK(log.records.size() == count + 1);
}

TEST_CASE("workload keys are equal across two processes", "[unit]") {
  json params = {{"M", 128}, {"K", 768}, {"N", 3072}};
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string key = op_dag("dense", params)->workload_key();
    bool ok = ::write(pipe_fds[1], key.data(), key.size()) == static_cast<ssize_t>(key.size());
    ::_exit(ok ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  char buf[64] = {};
  ssize_t n = ::read(pipe_fds[0], buf, sizeof(buf));
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(n > 0);
  CHECK(std::string(buf, n) == op_dag("dense", params)->workload_key());
}

// Forks a child that holds path's lock (LogLock) until told over a pipe to
// append one record and end; returns its pid and the pipe to tell it.
std::pair<pid_t, int> hold_lock_in_child(const std::string& path, const Record& record) {
  int held[2], go[2];
  REQUIRE(::pipe(held) == 0);
  REQUIRE(::pipe(go) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(held[0]);
    ::close(go[1]);
    try {
      LogWriter writer(path);
      char c = 0;
      if (::write(held[1], "x", 1) != 1 || ::read(go[0], &c, 1) != 1) ::_exit(3);
      writer.append(record);
      ::_exit(0);
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(held[1]);
  ::close(go[0]);
  char c = 0;
  REQUIRE(::read(held[0], &c, 1) == 1);
  ::close(held[0]);
  return {pid, go[1]};
}

TEST_CASE("a log held by another process is refused, naming it, or waited for", "[unit]") {
  ScratchDir dir;
  const std::string path = dir.file("sub/tune.log");
  const std::vector<Record> records = sample_records(2, 5);
  auto [pid, go] = hold_lock_in_child(path, records[0]);

  const std::string msg = testing::user_error([&] { LogLock lock(path, /*wait=*/false); });
  CHECK_THAT(msg, Contains("tuning log '" + path + "' is being written by process " + std::to_string(pid)));
  CHECK_THAT(msg, Contains("--wait-for-log"));
  CHECK_THAT(testing::user_error([&] { LogWriter writer(path); }), Contains("process " + std::to_string(pid)));

  // Waiting: the lock comes only once the child has written and ended.
  std::thread release([go = go] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(::write(go, "x", 1) == 1);
    ::close(go);
  });
  {
    LogLock lock(path, /*wait=*/true);
    REQUIRE(read_log(path).records.size() == 1);
    // Within one process the lock is shared: the writer takes it again.
    LogWriter(path).append(records[1]);
  }
  release.join();
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(read_log(path).records.size() == 2);
  LogLock again(path, /*wait=*/false);  // released by all
}

TEST_CASE("a write that fails part way leaves the log ending with its last whole record", "[unit]") {
  ScratchDir dir;
  const std::string path = dir.file("tune.log");
  const std::vector<Record> records = sample_records(3, 9);
  LogWriter(path).append(records[0]);
  const auto size = std::filesystem::file_size(path);
  // In a child, a file size limit that the next line crosses (EFBIG, with
  // SIGXFSZ ignored: what a full disk does to the write).
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit limit{size + 40, size + 40};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
    try {
      LogWriter(path).append(records[1]);
    } catch (const SystemError& e) {
      const std::string what = e.what();
      ::_exit(what.find("cannot write the tuning log: write(" + path + "): File too large") == 0 ? 0 : 4);
    }
    ::_exit(5);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(std::filesystem::file_size(path) == size);
  LogWriter(path).append(records[2]);
  const LogContents log = read_log(path);
  CHECK(log.warnings.empty());
  REQUIRE(log.records.size() == 2);
  check_same_record(log.records[1], records[2]);
}

}  // namespace
}  // namespace tunectl::log
