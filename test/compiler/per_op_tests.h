// One Catch test case per operator in the ops registry, registered at
// start-up, so that a new op is covered without editing the property tests
// and CTest runs the ops in parallel.
#pragma once

#include <deque>
#include <string>

#include <catch2/catch.hpp>

#include "ops/registry.h"

namespace tunectl::testing {

using OpCheck = void (*)(const std::string& op);

// Registers "<prefix><op>" with `tags` for every op, each running check(op).
// Call it to initialize a namespace-scope constant.
inline bool register_per_op_tests(const char* prefix, const char* tags, OpCheck check) {
  class PerOpTest : public Catch::ITestInvoker {
   public:
    PerOpTest(std::string op, OpCheck check) : op_(std::move(op)), check_(check) {}
    void invoke() const override { check_(op_); }

   private:
    std::string op_;
    OpCheck check_;
  };
  static std::deque<std::string> names;  // stable storage for the names Catch refers to
  for (const auto& op : ops::op_names()) {
    names.push_back(prefix + op);
    Catch::AutoReg(new PerOpTest(op, check), CATCH_INTERNAL_LINEINFO, "", Catch::NameAndTags{names.back(), tags});
  }
  return true;
}

}  // namespace tunectl::testing
