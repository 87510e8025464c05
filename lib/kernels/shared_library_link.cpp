// The last build step of a kernels folder: the per-task object files become
// libtunectl_kernels.so by running the system C compiler driver
// (`$CC -shared -o lib.so a.o b.o -lm`). The driver knows the platform's
// linker flags, so tunectl does not carry a linker of its own. It runs with
// posix_spawn (no shell: $CC is split on spaces, names are passed as is)
// inside the folder with relative names, so the library bytes do not depend
// on where the folder is; its output is captured for the error message.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "ir/error.h"
#include "kernels/shared_library_link.h"

extern char** environ;

namespace tunectl::kernels {

namespace {

// The compiler driver command: $CC split on whitespace (e.g. "ccache gcc"),
// or "cc" when $CC is unset or blank.
std::vector<std::string> compiler_command() {
  std::vector<std::string> words;
  if (const char* cc = std::getenv("CC")) {
    std::istringstream in(cc);
    for (std::string w; in >> w;) words.push_back(w);
  }
  if (words.empty()) words.push_back("cc");
  return words;
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// Closes a file descriptor and the spawn objects on every way out.
struct SpawnResources {
  int read_fd = -1;
  int write_fd = -1;
  posix_spawn_file_actions_t actions;
  bool actions_ready = false;
  ~SpawnResources() {
    if (read_fd >= 0) ::close(read_fd);
    if (write_fd >= 0) ::close(write_fd);
    if (actions_ready) posix_spawn_file_actions_destroy(&actions);
  }
};

}  // namespace

void link_shared_library(const std::string& dir, const std::vector<std::string>& inputs,
                         const std::string& output_name, const std::vector<std::string>& flags) {
  std::vector<std::string> command = compiler_command();
  for (const char* flag : {"-shared", "-o"}) command.push_back(flag);
  command.push_back(output_name);
  command.insert(command.end(), inputs.begin(), inputs.end());
  command.insert(command.end(), flags.begin(), flags.end());
  command.push_back("-lm");
  std::vector<char*> argv;
  for (std::string& w : command) argv.push_back(w.data());
  argv.push_back(nullptr);

  SpawnResources res;
  int fds[2];
  system_check(::pipe2(fds, O_CLOEXEC) == 0, "cannot link the kernels library", "pipe2");
  res.read_fd = fds[0];
  res.write_fd = fds[1];
  internal_check(posix_spawn_file_actions_init(&res.actions) == 0, "posix_spawn_file_actions_init");
  res.actions_ready = true;
  // The child's stdout and stderr both go to the pipe (dup2 clears CLOEXEC).
  posix_spawn_file_actions_adddup2(&res.actions, res.write_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&res.actions, res.write_fd, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&res.actions, dir.c_str());

  pid_t pid = 0;
  int err = posix_spawnp(&pid, argv[0], &res.actions, nullptr, argv.data(), environ);
  user_check(err == 0, "cannot run the C compiler '", argv[0], "' to link ", output_name, ": ", std::strerror(err),
             " (install cc or set $CC)");
  ::close(res.write_fd);
  res.write_fd = -1;

  std::string output;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(res.read_fd, buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) system_check(errno == EINTR, "cannot link the kernels library", "waitpid");
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  user_check(ok, "linking ", output_name, " in ", dir, " failed (", join(command), "):\n", output);
}

}  // namespace tunectl::kernels
