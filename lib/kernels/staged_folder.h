// An output folder written whole or not at all (the kernels folder of
// `tune`/`replay`, the compiled model of `compile`). Everything is written
// into a hidden sibling, ".NAME.partial-PID", and commit() puts it in the
// folder's place in one atomic step (renameat2 RENAME_EXCHANGE when the
// folder exists, rename otherwise), then removes the old contents. An error,
// a full disk or a kill before commit() leaves the folder as it was: the
// destructor removes the partial sibling, and the next StagedFolder for the
// same folder removes those of processes that were killed.
#pragma once

#include <string>

namespace tunectl::kernels {

class StagedFolder {
 public:
  // UserError when `dir` exists and is not a folder, or is a folder that has
  // files but not `marker` (so that `-o .` never replaces a folder of the
  // user's); SystemError naming the path when the sibling cannot be made.
  StagedFolder(const std::string& dir, const std::string& marker);
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  // Where to write the files.
  const std::string& path() const { return staging_; }
  // Puts the written folder in place of `dir`; SystemError naming it when
  // the rename fails.
  void commit();

 private:
  std::string dir_;
  std::string staging_;
  bool committed_ = false;
};

}  // namespace tunectl::kernels
