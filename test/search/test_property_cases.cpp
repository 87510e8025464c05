// The share of random cases the property tests run (support/property_cases.h):
// CI's TUNECTL_PROPERTY_SHARE=0.2 must shrink the counts, never to zero, and
// a bad value must stop the tests rather than silently run all or none.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/property_cases.h"

namespace {

// Sets TUNECTL_PROPERTY_SHARE for a scope, then puts back what CI set.
class ShareScope {
 public:
  explicit ShareScope(const char* value) {
    if (const char* old = std::getenv(kName)) old_ = old;
    if (value)
      setenv(kName, value, 1);
    else
      unsetenv(kName);
  }
  ~ShareScope() {
    if (old_)
      setenv(kName, old_->c_str(), 1);
    else
      unsetenv(kName);
  }

 private:
  static constexpr const char* kName = "TUNECTL_PROPERTY_SHARE";
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("property cases: the full count unset, a share rounded up, at least one", "[unit]") {
  using tunectl::testing::property_cases;
  {
    ShareScope s(nullptr);
    CHECK(property_cases(50) == 50);
  }
  {
    ShareScope s("0.2");
    CHECK(property_cases(50) == 10);
    CHECK(property_cases(30) == 6);
    CHECK(property_cases(4) == 1);
    CHECK(property_cases(1) == 1);
  }
  {
    ShareScope s("1");
    CHECK(property_cases(50) == 50);
  }
}

TEST_CASE("property cases: a share of 0 or below, above 1 or not a number is refused", "[unit]") {
  for (const char* bad : {"0", "-0.5", "1.5", "abc", "0.2x"}) {
    INFO(bad);
    ShareScope s(bad);
    CHECK_THROWS_AS(tunectl::testing::property_cases(10), std::invalid_argument);
  }
}

TEST_CASE("property subset: all of a list unset, else a share that rotates over it", "[unit]") {
  using tunectl::testing::property_subset;
  const std::vector<std::string> archs = {"sm_80", "sm_90"};
  {
    ShareScope s(nullptr);
    CHECK(property_subset(archs, 0) == archs);
    CHECK(property_subset(archs, 1) == std::vector<std::string>{"sm_90", "sm_80"});
  }
  {
    ShareScope s("0.2");
    CHECK(property_subset(archs, 0) == std::vector<std::string>{"sm_80"});
    CHECK(property_subset(archs, 1) == std::vector<std::string>{"sm_90"});
    CHECK(property_subset(archs, 2) == std::vector<std::string>{"sm_80"});
    CHECK(property_subset(std::vector<int>{1, 2, 3, 4, 5, 6}, 4) == std::vector<int>{5, 6});
  }
}
