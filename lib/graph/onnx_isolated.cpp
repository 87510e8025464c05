#include "graph/onnx_isolated.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <exception>

#include "ir/error.h"

namespace tunectl::graph {
namespace {

void write_all(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(3);
    done += static_cast<size_t>(n);
  }
}

// The child: 'M' + the serialized result, or 'E' + an error message.
[[noreturn]] void run_child(int fd, const onnx::ModelProto& model,
                            const std::function<onnx::ModelProto(const onnx::ModelProto&)>& step) {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  std::string out;
  try {
    const onnx::ModelProto result = step(model);
    out = "M";
    if (!result.AppendToString(&out)) out = "Ethe result does not serialize (past protobuf's 2 GiB)";
  } catch (const std::exception& e) {
    out = std::string("E") + e.what();
  }
  write_all(fd, out);
  ::_exit(0);  // no destructors, atexit handlers or leak checks of the parent's
}

}  // namespace

onnx::ModelProto run_isolated(const std::string& what, const std::string& path, const onnx::ModelProto& model,
                              const std::function<onnx::ModelProto(const onnx::ModelProto&)>& step) {
  int fds[2];
  system_check(::pipe2(fds, O_CLOEXEC) == 0, "cannot check the ONNX model", "pipe");
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    system_fail("cannot check the ONNX model", "fork", "", strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], model, step);
  }
  ::close(fds[1]);
  std::string reply;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(chunk, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!reply.empty() && reply[0] == 'E') throw UserError(reply.substr(1));
  onnx::ModelProto result;
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !reply.empty() && reply[0] == 'M' &&
                  result.ParseFromArray(reply.data() + 1, static_cast<int>(reply.size() - 1));
  if (!ok) {
    const std::string how = WIFSIGNALED(status) ? std::string("crashed (") + sigabbrev_np(WTERMSIG(status)) + ")"
                                                : "ended without a result";
    user_fail("'", path, "' is not a valid ONNX model: the ONNX library's ", what, " ", how,
              " on it, a malformation that ONNX itself does not check");
  }
  return result;
}

}  // namespace tunectl::graph
