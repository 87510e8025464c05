// The tuning log on disk: JSON lines, append-only, one Record per line. The
// writer writes (and fsyncs) every record as it is measured, each line in one
// write(2) to a file opened for appending, so an interrupted tuning run loses
// nothing it measured and lines never interleave; it holds the log's lock
// (log_lock.h) so that no other process appends meanwhile. The reader skips
// a truncated last line with a warning, refuses a corrupt line elsewhere or
// a newer format version with a message naming the file and line.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "log/log_lock.h"
#include "log/record.h"

namespace tunectl::log {

class LogWriter {
 public:
  // Locks path (LogLock, without waiting: UserError naming the process that
  // holds it) and opens it for appending, creating it and its folder if
  // needed. A truncated last line left by a killed run is cut off first (or,
  // if it is complete JSON missing only its newline, ended), so that new
  // records never continue it; warning() then says so.
  explicit LogWriter(const std::string& path);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;
  // Writes one line, fsynced before returning; safe to call from several
  // threads. Returns its line number in the file (1-based, as
  // `tunectl compile-op --log FILE --line N` takes it). SystemError naming
  // the file if the write fails (a full disk, a file size limit); the part
  // of the line that was written is cut off again, so the log still ends
  // with its last whole record.
  int append(const Record& r);
  const std::string& path() const { return path_; }
  // What opening repaired, or "" when the file ended cleanly.
  const std::string& warning() const { return warning_; }

 private:
  std::string path_;
  LogLock lock_;
  int fd_ = -1;
  std::mutex mutex_;
  std::string warning_;
  int lines_ = 0;  // lines in the file
};

struct LogContents {
  std::vector<Record> records;
  std::vector<int> lines;  // the line number (1-based) of each record
  std::vector<std::string> warnings;  // e.g. the truncated last line skipped
};

// The log files a path names: the file itself, or every *.json and *.jsonl
// file of a folder, sorted by name. UserError when the path is missing.
std::vector<std::string> log_files(const std::string& path);

// Reads every record of a log file; UserError for a missing file, a corrupt
// line that is not the last, or an unknown/newer version.
LogContents read_log(const std::string& path);

// The records of each task on `target` that compete for its best, by
// workload key, in log order: all of them, or after a runoff (the records
// flagged `runoff`, tune/runoff.h, which a runoff appends one after another)
// the task's last run of consecutive runoff records and those logged after
// them. A runoff timed its
// programs side by side; the records before it were timed minutes to hours
// apart on a host whose speed drifts, and the lowest of those times picks
// the luckiest moment as much as the fastest program.
std::map<std::string, std::vector<const Record*>> competing_records(const std::vector<Record>& records,
                                                                    const std::string& target);

// The best valid record of each task (of its competing_records, the lowest
// median cost; a measured one before any estimated one) on `target`
// (target::Target::str()), by workload key. A record of another
// target is never applied: its program was timed on other hardware and may
// use instructions this one lacks.
std::map<std::string, Record> best_records(const std::vector<Record>& records, const std::string& target);

// The target records are used for: `wanted` (a canonical target string)
// when not empty, which must have records; otherwise the records' only
// target. UserError, starting with `source` (a file name), naming the
// targets the records have when neither holds.
std::string pick_target(const std::vector<Record>& records, const std::string& wanted, const std::string& source);

// The records measured on `target`, in log order.
std::vector<Record> records_for_target(const std::vector<Record>& records, const std::string& target);

// What the records of targets other than `target` are, for a message that
// says they are not applied and names both targets ("" when there are none):
// "12 records of 'llvm -mcpu=x86-64-v3' are for another target than
// 'llvm -mcpu=znver4' and not used (--target selects the target)".
std::string other_targets_note(const std::vector<Record>& records, const std::string& target);

// A stable key for "this program of this task was measured": workload key
// plus the steps' JSON, so a resumed run never measures a program twice.
std::string program_key(const std::string& workload_key, const std::vector<schedule::Step>& steps);

}  // namespace tunectl::log
