#include "kernels/staged_folder.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ir/error.h"

namespace tunectl::kernels {

namespace fs = std::filesystem;

namespace {

// "<dir's parent>/.<dir's name>.partial-"
std::string staging_prefix(const fs::path& dir) {
  fs::path name = dir.filename();
  return (dir.parent_path() / ("." + name.string() + ".partial-")).string();
}

// Removes the partial siblings of processes that no longer run.
void remove_abandoned(const fs::path& dir) {
  const std::string prefix = staging_prefix(dir);
  const fs::path parent = fs::path(prefix).parent_path();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent.empty() ? "." : parent, ec)) {
    const std::string path = (parent / entry.path().filename()).string();
    if (path.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(path.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || (*end != '\0' && std::strcmp(end, ".old") != 0)) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // its writer still runs
    fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

StagedFolder::StagedFolder(const std::string& dir, const std::string& marker) {
  // Without a trailing slash, so that "out/" stages as ".out.partial-N".
  fs::path folder = fs::path(dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  dir_ = folder.string();
  std::error_code ec;
  if (fs::exists(folder, ec)) {
    user_check(fs::is_directory(folder, ec), "'", dir_, "' exists and is not a folder");
    user_check(fs::is_empty(folder, ec) || fs::exists(folder / marker, ec), "'", dir_,
               "' is a folder with files of its own (no ", marker, "); refusing to replace it: name a new folder");
  }
  if (!folder.parent_path().empty()) {
    fs::create_directories(folder.parent_path(), ec);
    if (ec) system_fail("cannot create the folder", "mkdir", folder.parent_path().string(), ec.message());
  }
  remove_abandoned(folder);
  staging_ = staging_prefix(folder) + std::to_string(::getpid());
  fs::remove_all(staging_, ec);
  fs::create_directory(staging_, ec);
  if (ec) system_fail("cannot create the folder", "mkdir", staging_, ec.message());
}

StagedFolder::~StagedFolder() {
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void StagedFolder::commit() {
  internal_check(!committed_, "StagedFolder::commit twice for ", dir_);
  // Swap when the folder exists: no moment without one of the two.
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, dir_.c_str(), RENAME_EXCHANGE) != 0) {
    const int err = errno;
    const std::string what = "cannot put the written folder in place";
    if (err == EINVAL) {
      // A file system without the exchange: move the old folder aside first.
      const std::string old = staging_ + ".old";
      system_check(::rename(dir_.c_str(), old.c_str()) == 0, what, "rename", dir_);
      if (::rename(staging_.c_str(), dir_.c_str()) != 0) {
        const int e = errno;
        (void)!::rename(old.c_str(), dir_.c_str());
        system_fail(what, "rename", dir_, std::strerror(e));
      }
      system_check(::rename(old.c_str(), staging_.c_str()) == 0, what, "rename", old);
    } else {
      if (err != ENOENT) system_fail(what, "rename", dir_, std::strerror(err));
      system_check(::rename(staging_.c_str(), dir_.c_str()) == 0, what, "rename", dir_);
    }
  }
  committed_ = true;
  // The old contents are now at staging_, which the destructor removes.
}

}  // namespace tunectl::kernels
