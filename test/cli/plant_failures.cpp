// Planted operating-system failures for failures_test.sh, preloaded into
// tunectl (LD_PRELOAD) and chosen by environment variables:
//   PLANT_FORK_FAILURE=N        every fork() after the first N fails with
//                               EAGAIN, as when the process limit is reached;
//   PLANT_READONLY_FOLDER=DIR   opening a file under DIR for writing, or
//                               making a folder there, fails with EROFS, as on a read-only file system
//                               (root bypasses permission bits, and a
//                               read-only mount needs a mount namespace that
//                               a chroot cannot always make).
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/types.h>

namespace {

bool under_readonly_folder(const char* path) {
  const char* folder = std::getenv("PLANT_READONLY_FOLDER");
  if (folder == nullptr || path == nullptr) return false;
  std::string_view p(path), f(folder);
  return p.substr(0, f.size()) == f && (p.size() == f.size() || p[f.size()] == '/');
}

template <typename Fn>
Fn next_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" pid_t fork() {
  static int forks = 0;
  const char* succeed_first = std::getenv("PLANT_FORK_FAILURE");
  if (succeed_first != nullptr && forks++ >= std::atoi(succeed_first)) {
    errno = EAGAIN;
    return -1;
  }
  return next_symbol<pid_t (*)()>("fork")();
}

extern "C" FILE* fopen(const char* path, const char* mode) {
  if (under_readonly_folder(path) && std::strpbrk(mode, "wa+") != nullptr) {
    errno = EROFS;
    return nullptr;
  }
  return next_symbol<FILE* (*)(const char*, const char*)>("fopen")(path, mode);
}

extern "C" FILE* fopen64(const char* path, const char* mode) { return fopen(path, mode); }

extern "C" int open(const char* path, int flags, ...) {
  if (under_readonly_folder(path) && (flags & (O_WRONLY | O_RDWR | O_CREAT)) != 0) {
    errno = EROFS;
    return -1;
  }
  va_list args;
  va_start(args, flags);
  mode_t mode = va_arg(args, mode_t);
  va_end(args);
  return next_symbol<int (*)(const char*, int, ...)>("open")(path, flags, mode);
}

extern "C" int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = va_arg(args, mode_t);
  va_end(args);
  return open(path, flags, mode);
}

extern "C" int mkdir(const char* path, mode_t mode) {
  if (under_readonly_folder(path)) {
    errno = EROFS;
    return -1;
  }
  return next_symbol<int (*)(const char*, mode_t)>("mkdir")(path, mode);
}
