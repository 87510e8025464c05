#include "codegen/cuda/compile_process.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "ir/error.h"
#include "runtime/cuda_driver.h"

namespace tunectl::codegen::cuda {

namespace {

// Messages are length-prefixed byte strings over a socket pair.
bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

template <typename Bytes>
bool send_bytes(int fd, const Bytes& b) {
  const uint64_t size = b.size();
  return write_all(fd, &size, sizeof size) && write_all(fd, b.data(), b.size());
}

template <typename Bytes>
bool receive_bytes(int fd, Bytes& b) {
  uint64_t size = 0;
  if (!read_all(fd, &size, sizeof size)) return false;
  b.resize(size);
  return read_all(fd, b.data(), size);
}

// What a reply says happened.
enum class Outcome : char { Compiled = 'c', UserError = 'u', InternalError = 'i' };

[[noreturn]] void serve(int fd, CompileFn compile) {
  for (;;) {
    CompileRequest r;
    if (!receive_bytes(fd, r.source) || !receive_bytes(fd, r.name) || !receive_bytes(fd, r.arch)) _exit(0);
    std::string outcome(1, static_cast<char>(Outcome::Compiled)), message;
    CompiledCuda out;
    try {
      out = compile(r);
    } catch (const UserError& e) {
      outcome[0] = static_cast<char>(Outcome::UserError);
      message = e.what();
    } catch (const std::exception& e) {
      outcome[0] = static_cast<char>(Outcome::InternalError);
      message = e.what();
    }
    if (!send_bytes(fd, outcome) || !send_bytes(fd, message) || !send_bytes(fd, out.ptx) ||
        !send_bytes(fd, out.cubin) || !send_bytes(fd, out.log))
      _exit(0);
  }
}

struct Helper {
  pid_t owner = 0;  // the process that forked it
  pid_t pid = 0;
  int fd = -1;
};

Helper fork_helper(CompileFn compile) {
  int fds[2];
  system_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "cannot start the NVRTC helper",
               "socketpair");
  const pid_t pid = fork();
  system_check(pid >= 0, "cannot start the NVRTC helper", "fork");
  if (pid == 0) {
    // Holds nothing of its parent's open (a measurement worker's socket
    // held here would hide that worker's exit), and ends when every holder
    // of the other end has closed it or died (not PR_SET_PDEATHSIG, which
    // fires when the forking thread ends, however long the process lives).
    std::signal(SIGINT, SIG_IGN);
    // NVRTC hands PTX to the driver's JIT whenever cuInit succeeds, and
    // then its log has no ptxas report; with no device visible here it
    // runs its own ptxas (as on machines without a driver) and reports.
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    if (fds[1] != 3) dup2(fds[1], 3);
    close_range(4, ~0U, 0);
    serve(3, compile);
  }
  close(fds[1]);
  return {getpid(), pid, fds[0]};
}

// One request and its reply; false when the helper is gone.
bool exchange(const Helper& h, const CompileRequest& r, std::string& outcome, std::string& message, CompiledCuda& out) {
  return send_bytes(h.fd, r.source) && send_bytes(h.fd, r.name) && send_bytes(h.fd, r.arch) &&
         receive_bytes(h.fd, outcome) && receive_bytes(h.fd, message) && receive_bytes(h.fd, out.ptx) &&
         receive_bytes(h.fd, out.cubin) && receive_bytes(h.fd, out.log) && outcome.size() == 1;
}

int stop(Helper& h) {
  close(h.fd);
  int status = 0;
  kill(h.pid, SIGKILL);
  waitpid(h.pid, &status, 0);
  h = {};
  return status;
}

Helper& this_process_helper() {
  static Helper h;
  return h;
}

}  // namespace

bool compiles_in_helper() { return runtime::cuda_device().has_value(); }

void start_helper(CompileFn compile) {
  Helper& h = this_process_helper();
  if (h.owner == getpid()) return;
  // A forked child inherits its parent's helper: not its own to talk to.
  if (h.owner != 0) close(h.fd);
  h = fork_helper(compile);
}

CompiledCuda compile_in_helper(const CompileRequest& request, CompileFn compile) {
  start_helper(compile);
  Helper& h = this_process_helper();
  std::string outcome, message;
  CompiledCuda out;
  if (!exchange(h, request, outcome, message, out)) {
    // Once more with a new one before calling it a failure.
    stop(h);
    h = fork_helper(compile);
    if (!exchange(h, request, outcome, message, out)) {
      const int status = stop(h);
      user_fail("the NVRTC helper process ended while compiling ", request.name, " (wait status ", status, ")");
    }
  }
  if (outcome[0] == static_cast<char>(Outcome::UserError)) throw UserError(message);
  if (outcome[0] == static_cast<char>(Outcome::InternalError)) throw InternalError(message);
  return out;
}

}  // namespace tunectl::codegen::cuda
