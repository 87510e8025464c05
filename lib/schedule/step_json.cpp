// The compact JSON array form of every step (see steps.h for the layouts).
// Reading validates the shape and the type of every element, since the
// arrays come from tuning logs a user hands us.
#include <limits>
#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "schedule/steps.h"

namespace tunectl::schedule {

using nlohmann::json;

json step_to_json(const Step& step) {
  return std::visit(
      [](const auto& st) -> json {
        using T = std::decay_t<decltype(st)>;
        if constexpr (std::is_same_v<T, SplitStep>)
          return json::array({"SP", st.stage, st.iter, st.extent, st.lengths, st.inner_to_outer});
        else if constexpr (std::is_same_v<T, FollowSplitStep>)
          return json::array({"FSP", st.stage, st.iter, st.src_step, st.n_split});
        else if constexpr (std::is_same_v<T, FollowFusedSplitStep>)
          return json::array({"FFSP", st.stage, st.iter, st.src_steps, st.level, st.factor});
        else if constexpr (std::is_same_v<T, ReorderStep>)
          return json::array({"RE", st.stage, st.order});
        else if constexpr (std::is_same_v<T, FuseStep>)
          return json::array({"FU", st.stage, st.iters});
        else if constexpr (std::is_same_v<T, AnnotationStep>)
          return json::array({"AN", st.stage, st.iter, st.annotation});
        else if constexpr (std::is_same_v<T, ComputeAtStep>)
          return json::array({"CA", st.stage, st.target_stage, st.target_iter});
        else if constexpr (std::is_same_v<T, ComputeInlineStep>)
          return json::array({"CI", st.stage});
        else if constexpr (std::is_same_v<T, ComputeRootStep>)
          return json::array({"CR", st.stage});
        else if constexpr (std::is_same_v<T, CacheReadStep>)
          return json::array({"CHR", st.stage, st.scope, st.readers});
        else if constexpr (std::is_same_v<T, CacheWriteStep>)
          return json::array({"CHW", st.stage, st.scope});
        else if constexpr (std::is_same_v<T, RfactorStep>)
          return json::array({"RF", st.stage, st.iter, st.factor_iter});
        else if constexpr (std::is_same_v<T, PragmaStep>)
          return json::array({"PR", st.stage, st.iter, st.pragma});
        else if constexpr (std::is_same_v<T, PrepackStep>)
          return json::array({"PP", st.stage});
        else if constexpr (std::is_same_v<T, StorageOrderStep>)
          return json::array({"SO", st.stage, st.order});
        else
          static_assert(sizeof(T) == 0, "step kind without JSON form");
      },
      step);
}

namespace {

// Reads the elements of one step array, failing with the array and the
// offending element in the message.
class Reader {
 public:
  explicit Reader(const json& j) : j_(j) {}

  void expect_size(size_t n) const {
    check(j_.size() == n, "a ", tag(), " step has ", n, " elements, this one has ", j_.size());
  }
  std::string tag() const { return j_[0].get<std::string>(); }

  int64_t int64_at(size_t k) const {
    check(j_[k].is_number_integer(), "element ", k, " must be an integer");
    return j_[k].get<int64_t>();
  }
  int int_at(size_t k) const {
    int64_t v = int64_at(k);
    check(v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max(), "element ", k,
          " is out of range");
    return static_cast<int>(v);
  }
  std::string string_at(size_t k) const {
    check(j_[k].is_string(), "element ", k, " must be a string");
    return j_[k].get<std::string>();
  }
  bool bool_at(size_t k) const {
    // Ansor's logs write booleans as 0/1.
    if (j_[k].is_number_integer()) {
      int64_t v = j_[k].get<int64_t>();
      check(v == 0 || v == 1, "element ", k, " must be a boolean");
      return v == 1;
    }
    check(j_[k].is_boolean(), "element ", k, " must be a boolean");
    return j_[k].get<bool>();
  }
  template <typename T>
  std::vector<T> int_list_at(size_t k) const {
    check(j_[k].is_array(), "element ", k, " must be an array of integers");
    std::vector<T> out;
    for (const auto& e : j_[k]) {
      check(e.is_number_integer(), "element ", k, " must be an array of integers");
      int64_t v = e.get<int64_t>();
      check(v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max(), "element ", k,
            " has an integer out of range");
      out.push_back(static_cast<T>(v));
    }
    return out;
  }

  template <typename... Args>
  void check(bool cond, const Args&... args) const {
    if (!cond) user_fail("bad step JSON ", j_.dump(), ": ", args...);
  }

 private:
  const json& j_;
};

}  // namespace

Step step_from_json(const json& j) {
  Reader r(j);
  r.check(j.is_array() && !j.empty() && j[0].is_string(), "a step must be an array starting with a tag string");
  r.check(j.size() >= 2, "a step needs at least a tag and a stage");
  const std::string tag = r.tag();
  if (tag == "SP") {
    r.expect_size(6);
    return SplitStep{r.int_at(1), r.int_at(2), r.int64_at(3), r.int_list_at<int64_t>(4), r.bool_at(5)};
  }
  if (tag == "FSP") {
    r.expect_size(5);
    return FollowSplitStep{r.int_at(1), r.int_at(2), r.int_at(3), r.int_at(4)};
  }
  if (tag == "FFSP") {
    r.expect_size(6);
    return FollowFusedSplitStep{r.int_at(1), r.int_at(2), r.int_list_at<int>(3), r.int_at(4), r.bool_at(5)};
  }
  if (tag == "RE") {
    r.expect_size(3);
    return ReorderStep{r.int_at(1), r.int_list_at<int>(2)};
  }
  if (tag == "FU") {
    r.expect_size(3);
    return FuseStep{r.int_at(1), r.int_list_at<int>(2)};
  }
  if (tag == "AN") {
    r.expect_size(4);
    return AnnotationStep{r.int_at(1), r.int_at(2), r.string_at(3)};
  }
  if (tag == "CA") {
    r.expect_size(4);
    return ComputeAtStep{r.int_at(1), r.int_at(2), r.int_at(3)};
  }
  if (tag == "CI") {
    r.expect_size(2);
    return ComputeInlineStep{r.int_at(1)};
  }
  if (tag == "CR") {
    r.expect_size(2);
    return ComputeRootStep{r.int_at(1)};
  }
  if (tag == "CHR") {
    r.expect_size(4);
    return CacheReadStep{r.int_at(1), r.string_at(2), r.int_list_at<int>(3)};
  }
  if (tag == "CHW") {
    r.expect_size(3);
    return CacheWriteStep{r.int_at(1), r.string_at(2)};
  }
  if (tag == "RF") {
    r.expect_size(4);
    return RfactorStep{r.int_at(1), r.int_at(2), r.int_at(3)};
  }
  if (tag == "PR") {
    r.expect_size(4);
    return PragmaStep{r.int_at(1), r.int_at(2), r.string_at(3)};
  }
  if (tag == "PP") {
    r.expect_size(2);
    return PrepackStep{r.int_at(1)};
  }
  if (tag == "SO") {
    r.expect_size(3);
    return StorageOrderStep{r.int_at(1), r.int_list_at<int>(2)};
  }
  user_fail("bad step JSON ", j.dump(), ": unknown step tag '", tag, "'");
}

json steps_to_json(const std::vector<Step>& steps) {
  json out = json::array();
  for (const auto& s : steps) out.push_back(step_to_json(s));
  return out;
}

std::vector<Step> steps_from_json(const json& j) {
  user_check(j.is_array(), "bad step list JSON: expected an array of steps, got ", j.type_name());
  std::vector<Step> out;
  for (const auto& s : j) out.push_back(step_from_json(s));
  return out;
}

}  // namespace tunectl::schedule
