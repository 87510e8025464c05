// The two error channels of tunectl (STYLE.md habit 5). A UserError is a
// mistake the user can fix (bad flag, bad schedule step, bad model) and is
// printed as is; an InternalError is a bug in tunectl. Measurement failures are
// neither: they are error kinds inside a measure result.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tunectl {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

// user_check(cond, "message parts", ...) throws UserError when cond is false.
template <typename... Args>
void user_check(bool cond, const Args&... args) {
  if (!cond) throw UserError(detail::concat(args...));
}

template <typename... Args>
[[noreturn]] void user_fail(const Args&... args) {
  throw UserError(detail::concat(args...));
}

// internal_check(cond, ...) guards invariants of tunectl itself.
template <typename... Args>
void internal_check(bool cond, const Args&... args) {
  if (!cond) throw InternalError(detail::concat("internal error: ", args...));
}

template <typename... Args>
[[noreturn]] void internal_fail(const Args&... args) {
  throw InternalError(detail::concat("internal error: ", args...));
}

}  // namespace tunectl
