// The ONNX backend conformance suite: every test case in ../shared/onnx/node,
// simple and pytorch-operator whose operators tunectl all supports runs
// through import, partition, codegen and the executor, and each output must
// match the expected .pb. The cases that pass are listed in
// expected_pass.txt; a listed case that stops passing fails this test, a
// case that newly passes is printed so the list can grow
// (TUNECTL_UPDATE_CONFORMANCE=1 rewrites it). TUNECTL_CONFORMANCE_FILTER=text
// runs only the cases whose name contains text (and checks only those).
//
// Each case runs in a forked child with a time limit, so that a kernel that
// crashes or hangs costs that case alone, not the whole suite's report.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "graph/convert.h"
#include "graph/model_ops.h"
#include "onnx_case.h"

using namespace tunectl;
using namespace tunectl::conformance;
namespace fs = std::filesystem;

namespace {

constexpr int kCaseSeconds = 120;
const char* const kCollections[] = {"node", "simple", "pytorch-operator"};

std::string expected_pass_file() {
  return (fs::path(TUNECTL_SOURCE_DIR) / "test" / "conformance" / "expected_pass.txt").string();
}

std::set<std::string> read_expected_pass() {
  std::set<std::string> names;
  std::ifstream in(expected_pass_file());
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) names.insert(line);
  return names;
}

struct Case {
  std::string name;  // "node/test_abs"
  fs::path dir;
};

std::vector<Case> all_cases(const std::string& root) {
  std::vector<Case> cases;
  for (const char* collection : kCollections) {
    for (const auto& entry : fs::directory_iterator(fs::path(root) / collection))
      if (fs::exists(entry.path() / "model.onnx"))
        cases.push_back({std::string(collection) + "/" + entry.path().filename().string(), entry.path()});
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

bool has_core_types(const Case& c) {
  try {
    return graph::model_has_core_types((c.dir / "model.onnx").string());
  } catch (const std::exception&) {
    return false;
  }
}

bool all_ops_supported(const Case& c) {
  try {
    for (const auto& op : graph::model_op_types((c.dir / "model.onnx").string()))
      if (!graph::is_supported_op(op)) return false;
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable models are not ours to run
  }
}

// Runs the case in a child process: the verdict and message come back
// through a pipe; a crash or a timeout is an error of that case.
CaseResult run_isolated(const Case& c) {
  int fds[2];
  if (pipe(fds) != 0) return {Outcome::Error, "pipe failed"};
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(kCaseSeconds);
    const fs::path data = c.dir / "test_data_set_0";
    // rtol 1e-3, atol 1e-7 for every case: none needs more for fp32 reassociation.
    CaseResult r = run_onnx_case((c.dir / "model.onnx").string(), numbered_files(data.string(), "input_"),
                                 numbered_files(data.string(), "output_"), Tolerance{});
    std::string msg = std::to_string(static_cast<int>(r.outcome)) + r.message;
    for (size_t done = 0; done < msg.size();) {
      const ssize_t n = write(fds[1], msg.data() + done, msg.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return {Outcome::Error, sig == SIGALRM ? "timed out after " + std::to_string(kCaseSeconds) + " s"
                                           : "crashed with signal " + std::to_string(sig)};
  }
  if (msg.empty()) return {Outcome::Error, "the child reported nothing"};
  return {static_cast<Outcome>(msg[0] - '0'), msg.substr(1)};
}

std::string first_line(const std::string& s, size_t limit = 240) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > limit ? line.substr(0, limit) + "..." : line;
}

}  // namespace

TEST_CASE("node tests: every ONNX test case of supported operators matches", "[conformance]") {
  const std::string root = onnx_data_dir();
  const char* filter_env = std::getenv("TUNECTL_CONFORMANCE_FILTER");
  const std::string filter = filter_env ? filter_env : "";
  const auto cases = all_cases(root);
  const std::set<std::string> expected = read_expected_pass();

  std::set<std::string> passed;
  std::vector<std::string> regressions;
  size_t supported = 0, total = 0, core = 0, core_passed = 0;
  for (const auto& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    ++total;
    const bool core_typed = has_core_types(c);
    core += core_typed;
    if (!all_ops_supported(c)) {
      if (expected.count(c.name)) regressions.push_back(c.name + ": an operator is no longer supported");
      continue;
    }
    ++supported;
    CaseResult r = run_isolated(c);
    if (r.outcome == Outcome::Pass) {
      passed.insert(c.name);
      core_passed += core_typed;
      continue;
    }
    std::printf("%s %s: %s\n", r.outcome == Outcome::Mismatch ? "MISMATCH" : "ERROR   ", c.name.c_str(),
                first_line(r.message).c_str());
    if (expected.count(c.name)) regressions.push_back(c.name + ": " + first_line(r.message));
  }
  std::printf("\n%zu passed / %zu supported (%zu total)\n", passed.size(), supported, total);
  std::printf("%zu passed / %zu with core types (%.1f%%)\n", core_passed, core,
              core ? 100.0 * static_cast<double>(core_passed) / static_cast<double>(core) : 0.0);
  for (const auto& name : passed)
    if (!expected.count(name)) std::printf("newly passing (add to expected_pass.txt): %s\n", name.c_str());
  const char* update = std::getenv("TUNECTL_UPDATE_CONFORMANCE");
  if (update && std::string(update) == "1") {
    REQUIRE(filter.empty());  // a filtered run would truncate the list
    std::ofstream out(expected_pass_file(), std::ios::trunc);
    for (const auto& name : passed) out << name << "\n";
    std::printf("rewrote %s with %zu cases\n", expected_pass_file().c_str(), passed.size());
    return;
  }
  if (filter.empty()) REQUIRE(!expected.empty());  // the list ships with the repository
  for (const auto& r : regressions) std::printf("REGRESSION %s\n", r.c_str());
  CHECK(regressions.empty());
}
