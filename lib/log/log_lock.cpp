#include "log/log_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "ir/error.h"

namespace tunectl::log {
namespace {

struct Held {
  int fd = -1;
  int count = 0;
};

// The logs this process holds, by device and inode.
std::mutex held_mutex;
std::map<std::pair<dev_t, ino_t>, Held>& held() {
  static std::map<std::pair<dev_t, ino_t>, Held> files;
  return files;
}

std::string command_line(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw)
    if (c == '\0') c = ' ';
  return raw;
}

}  // namespace

std::string lock_holder(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return "another process";
  // A line of /proc/locks: "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF",
  // the device as hexadecimal major:minor; "1: -> FLOCK ..." is a waiter.
  char device[64];
  std::snprintf(device, sizeof(device), "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, pid, file;
    if (!(fields >> id >> kind >> mode >> access >> pid >> file) || kind != "FLOCK" || file != device) continue;
    const std::string command = command_line(pid);
    return "process " + pid + (command.empty() ? "" : " (" + command + ")");
  }
  return "another process";
}

LogLock::LogLock(const std::string& path, bool wait) : path_(path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) system_fail("cannot create the folder of the tuning log", "mkdir", parent.string(), ec.message());
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  system_check(fd >= 0, "cannot open the tuning log for appending", "open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    system_fail("cannot read the tuning log", "fstat", path, std::strerror(err));
  }
  device_ = st.st_dev;
  inode_ = st.st_ino;

  std::lock_guard<std::mutex> guard(held_mutex);
  Held& h = held()[{device_, inode_}];
  if (h.count > 0) {
    ::close(fd);
    ++h.count;
    return;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      ::close(fd);
      held().erase({device_, inode_});
      system_fail("cannot lock the tuning log", "flock", path, std::strerror(err));
    }
    const std::string holder = lock_holder(fd);
    if (!wait) {
      ::close(fd);
      held().erase({device_, inode_});
      user_fail("tuning log '", path, "' is being written by ", holder,
                "; two runs on one log would measure the same programs twice. Wait for it to end, or pass "
                "--wait-for-log to start when it does");
    }
    std::fprintf(stderr, "waiting for %s, which is writing tuning log '%s'\n", holder.c_str(), path.c_str());
    std::fflush(stderr);
    int rc;
    while ((rc = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      const int e = errno;
      ::close(fd);
      held().erase({device_, inode_});
      system_fail("cannot lock the tuning log", "flock", path, std::strerror(e));
    }
  }
  h.fd = fd;
  h.count = 1;
}

LogLock::~LogLock() {
  std::lock_guard<std::mutex> guard(held_mutex);
  auto it = held().find({device_, inode_});
  if (it == held().end() || --it->second.count > 0) return;
  ::close(it->second.fd);  // closing the last descriptor releases the flock
  held().erase(it);
}

}  // namespace tunectl::log
