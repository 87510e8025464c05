// The error channels of tunectl (STYLE.md habit 5), each with its exit code
// (cmd/main.cpp). A UserError is a mistake the user can fix (bad flag, bad
// model, bad file) and is printed as is (exit 2); a SystemError is an
// operating-system call that failed (fork, poll, a file that cannot be
// written: a read-only folder, a full disk), named with its path (exit 71);
// an InternalError is a bug in tunectl (exit 70). Measurement failures are
// none of these: they are error kinds inside a measure result, and a
// schedule or rule that does not apply is an ordinary return value.
#pragma once

#include <cerrno>
#include <cstring>
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

struct SystemError : std::runtime_error {
  using std::runtime_error::runtime_error;
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

// Throws SystemError "<what>: <call>(<path>): <reason>", e.g. "cannot write
// tuning log: write(/data/log.json): No space left on device"; path may be "".
[[noreturn]] inline void system_fail(const std::string& what, const std::string& call, const std::string& path,
                                     const std::string& reason) {
  throw SystemError(what + ": " + call + "(" + path + "): " + reason);
}

// system_check(ok, ...) throws SystemError with errno's text when ok is false.
inline void system_check(bool ok, const std::string& what, const std::string& call, const std::string& path = "") {
  if (!ok) system_fail(what, call, path, std::strerror(errno));
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
