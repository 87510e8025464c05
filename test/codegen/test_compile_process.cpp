// The NVRTC helper process (codegen/cuda/compile_process.h): requests and
// replies cross the process boundary intact, errors keep their kind and
// text, the helper serves many requests, and one that dies is replaced.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>

#include "codegen/cuda/compile_process.h"
#include "ir/error.h"

namespace tunectl::codegen::cuda {

namespace {

// Echoes the request back, with the helper's pid in the log.
CompiledCuda echo(const CompileRequest& r) {
  CompiledCuda out;
  out.ptx = r.source;
  out.cubin.assign(r.name.begin(), r.name.end());
  out.cubin.push_back('\0');  // binary data survives
  out.cubin.push_back('\xff');
  out.log = r.arch + " " + std::to_string(getpid());
  if (r.source == "user error") user_fail("bad input ", r.name);
  if (r.source == "internal error") internal_fail("broken ", r.name);
  if (r.source == "crash") raise(SIGKILL);
  return out;
}

std::string helper_pid(const CompiledCuda& c) { return c.log.substr(c.log.find(' ') + 1); }

}  // namespace

TEST_CASE("the NVRTC helper answers requests in another process", "[codegen][cuda]") {
  const std::string big(3 << 20, 'x');  // larger than a socket buffer
  const CompiledCuda a = compile_in_helper({big, "k1", "sm_90"}, echo);
  CHECK(a.ptx == big);
  CHECK(a.cubin == std::vector<char>{'k', '1', '\0', '\xff'});
  CHECK(a.log.rfind("sm_90 ", 0) == 0);
  CHECK(helper_pid(a) != std::to_string(getpid()));
  const CompiledCuda b = compile_in_helper({"source", "k2", "sm_80"}, echo);
  CHECK(helper_pid(b) == helper_pid(a));  // one helper serves them all
}

TEST_CASE("errors in the NVRTC helper keep their kind and text", "[codegen][cuda]") {
  CHECK_THROWS_MATCHES(compile_in_helper({"user error", "k", "sm_90"}, echo), UserError,
                       Catch::Matchers::Message("bad input k"));
  CHECK_THROWS_MATCHES(compile_in_helper({"internal error", "k", "sm_90"}, echo), InternalError,
                       Catch::Matchers::Message("internal error: broken k"));
}

TEST_CASE("a helper that dies is replaced, and a request that kills it fails", "[codegen][cuda]") {
  const std::string before = helper_pid(compile_in_helper({"s", "k", "sm_90"}, echo));
  CHECK_THROWS_WITH(compile_in_helper({"crash", "k", "sm_90"}, echo),
                    Catch::Matchers::StartsWith("the NVRTC helper process ended while compiling k"));
  const std::string after = helper_pid(compile_in_helper({"s", "k", "sm_90"}, echo));
  CHECK(after != before);
}

}  // namespace tunectl::codegen::cuda
