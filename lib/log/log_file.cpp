#include "log/log_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "ir/error.h"

namespace tunectl::log {

using nlohmann::json;

namespace {

std::string errno_text() { return std::strerror(errno); }

// Offset just past the last '\n' of the file (0 if there is none), found by
// reading backwards so that a long log is not read whole.
off_t end_of_last_line(int fd, off_t size, const std::string& path) {
  char chunk[4096];
  off_t end = size;
  while (end > 0) {
    off_t begin = std::max<off_t>(0, end - static_cast<off_t>(sizeof(chunk)));
    ssize_t n = ::pread(fd, chunk, end - begin, begin);
    system_check(n == end - begin, "cannot read the tuning log", "pread", path);
    for (off_t i = n - 1; i >= 0; --i)
      if (chunk[i] == '\n') return begin + i + 1;
    end = begin;
  }
  return 0;
}

std::string read_range(int fd, off_t begin, off_t end, const std::string& path) {
  std::string s(static_cast<size_t>(end - begin), '\0');
  ssize_t n = ::pread(fd, s.data(), s.size(), begin);
  system_check(n == static_cast<ssize_t>(s.size()), "cannot read the tuning log", "pread", path);
  return s;
}

bool is_record_line(const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return false;
  try {
    record_from_json(j);
    return true;
  } catch (const UserError&) {
    return false;
  }
}

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string parse_error_reason(const json::exception& e) {
  std::string what = e.what();
  size_t tag_end = what.find("] ");
  return tag_end == std::string::npos ? what : what.substr(tag_end + 2);
}

// Writes all of data at the end of the file (opened O_APPEND), or SystemError
// after cutting off whatever part of it was written.
void append_all(int fd, const std::string& data, const std::string& path) {
  struct stat st;
  system_check(::fstat(fd, &st) == 0, "cannot read the tuning log", "fstat", path);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      if (done > 0) (void)!::ftruncate(fd, st.st_size);
      system_fail("cannot write the tuning log", "write", path, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  system_check(::fsync(fd) == 0, "cannot write the tuning log", "fsync", path);
}

// Makes the file end with a newline before anything is appended, so that a
// new record never continues a fragment; returns a warning if it had to.
std::string end_cleanly(int fd, const std::string& path) {
  struct stat st;
  system_check(::fstat(fd, &st) == 0, "cannot read the tuning log", "fstat", path);
  off_t tail = end_of_last_line(fd, st.st_size, path);
  if (tail == st.st_size) return "";
  // The file does not end with a newline: a write was cut short (power loss,
  // full disk) or the last record lacks only its newline.
  std::string last = read_range(fd, tail, st.st_size, path);
  if (json::accept(last)) {
    append_all(fd, "\n", path);
    return "tuning log '" + path + "' lacked a newline after its last line; added one";
  }
  // Cut the fragment off only when the line before it is a record, so that a
  // file that is not a tuning log (a mistyped --log) is never truncated.
  bool looks_like_log = false;
  if (tail > 0) {
    off_t prev = end_of_last_line(fd, tail - 1, path);
    looks_like_log = is_record_line(read_range(fd, prev, tail - 1, path));
  }
  user_check(looks_like_log, "'", path, "' ends with an incomplete line and does not look like a tuning log; ",
             "refusing to append to it");
  system_check(::ftruncate(fd, tail) == 0, "cannot repair the tuning log", "ftruncate", path);
  return "dropped a truncated last line (" + std::to_string(st.st_size - tail) + " bytes) of tuning log '" + path + "'";
}

// Newlines in the file (which end_cleanly has made end with one). Reads its
// size only: a device such as /dev/full reads without end.
int count_lines(int fd, const std::string& path) {
  struct stat st;
  system_check(::fstat(fd, &st) == 0, "cannot read the tuning log", "fstat", path);
  int lines = 0;
  char chunk[1 << 16];
  for (off_t at = 0; at < st.st_size;) {
    ssize_t n = ::pread(fd, chunk, std::min<off_t>(sizeof(chunk), st.st_size - at), at);
    system_check(n >= 0, "cannot read the tuning log", "pread", path);
    if (n == 0) break;
    lines += static_cast<int>(std::count(chunk, chunk + n, '\n'));
    at += n;
  }
  return lines;
}

}  // namespace

LogWriter::LogWriter(const std::string& path) : path_(path), lock_(path, /*wait=*/false) {
  // O_CLOEXEC: compiler processes do not inherit it.
  fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  system_check(fd_ >= 0, "cannot open the tuning log for appending", "open", path);
  try {
    warning_ = end_cleanly(fd_, path);
    lines_ = count_lines(fd_, path);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

LogWriter::~LogWriter() {
  if (fd_ >= 0) ::close(fd_);
}

int LogWriter::append(const Record& r) {
  const std::string line = record_to_json(r).dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  append_all(fd_, line, path_);
  return ++lines_;
}

std::vector<std::string> log_files(const std::string& path) {
  user_check(std::filesystem::exists(path), "no tuning log or folder ", path);
  if (!std::filesystem::is_directory(path)) return {path};
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".json" || ext == ".jsonl")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

LogContents read_log(const std::string& path) {
  user_check(!std::filesystem::is_directory(path), "tuning log '", path, "' is a folder");
  // A device (say /dev/zero) would read without end.
  user_check(!std::filesystem::exists(path) || std::filesystem::is_regular_file(path), "tuning log '", path,
             "' is not a regular file");
  std::ifstream in(path, std::ios::binary);
  user_check(in.is_open(), "cannot open tuning log '", path, "': ", errno_text());
  LogContents contents;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    // getline sets eof only when the line had no '\n': the file's end.
    bool terminated = !in.eof();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {  // a syntax error, or a number past 64 bits
      if (!terminated) {
        contents.warnings.push_back("skipped truncated last line " + std::to_string(line_no) + " of " + path);
        continue;
      }
      user_fail(path, ":", line_no, ": corrupt log line: ", parse_error_reason(e));
    }
    try {
      record_version(j);
    } catch (const UserError& e) {
      user_fail(path, ":", line_no, ": ", e.what());
    }
    try {
      contents.records.push_back(record_from_json(j));
      contents.lines.push_back(line_no);
    } catch (const UserError& e) {
      user_fail(path, ":", line_no, ": corrupt log line: ", e.what());
    }
  }
  system_check(!in.bad(), "cannot read the tuning log", "read", path);
  return contents;
}

std::map<std::string, std::vector<const Record*>> competing_records(const std::vector<Record>& records,
                                                                    const std::string& target) {
  std::map<std::string, std::vector<const Record*>> by_task;
  for (const Record& r : records)
    if (r.task.target == target) by_task[r.task.workload_key].push_back(&r);
  for (auto& [key, task_records] : by_task) {
    // The latest runoff: the last run of consecutive runoff records.
    auto last = std::find_if(task_records.rbegin(), task_records.rend(), [](const Record* r) { return r->result.runoff; });
    if (last == task_records.rend()) continue;
    auto first = last;
    while (std::next(first) != task_records.rend() && (*std::next(first))->result.runoff) ++first;
    task_records.erase(task_records.begin(), std::prev(first.base()));
  }
  return by_task;
}

std::map<std::string, Record> best_records(const std::vector<Record>& records, const std::string& target) {
  std::map<std::string, Record> best;
  for (const auto& [key, task_records] : competing_records(records, target)) {
    const Record* pick = nullptr;
    for (const Record* r : task_records) {
      if (!r->result.ok()) continue;
      // A measurement beats any estimate; then strictly lower: on a tie the
      // earliest record stays.
      const MeasureResult* old = pick ? &pick->result : nullptr;
      if (!old || (old->estimated != r->result.estimated ? old->estimated
                                                         : r->result.median_cost() < old->median_cost()))
        pick = r;
    }
    if (pick) best.emplace(key, *pick);
  }
  return best;
}

std::string pick_target(const std::vector<Record>& records, const std::string& wanted, const std::string& source) {
  std::set<std::string> targets;
  for (const Record& r : records) targets.insert(r.task.target);
  user_check(!targets.empty(), source, ": no records");
  if (!wanted.empty()) {
    user_check(targets.count(wanted) > 0, source, ": no records for target '", wanted, "': ",
               other_targets_note(records, wanted));
    return wanted;
  }
  if (targets.size() == 1) return *targets.begin();
  std::string names;
  for (const std::string& t : targets) names += (names.empty() ? "'" : ", '") + t + "'";
  user_fail(source, ": records of ", targets.size(), " targets (", names, "); pick one with --target");
}

std::vector<Record> records_for_target(const std::vector<Record>& records, const std::string& target) {
  std::vector<Record> out;
  for (const Record& r : records)
    if (r.task.target == target) out.push_back(r);
  return out;
}

std::string other_targets_note(const std::vector<Record>& records, const std::string& target) {
  std::map<std::string, int> others;
  for (const Record& r : records)
    if (r.task.target != target) ++others[r.task.target];
  if (others.empty()) return "";
  std::string text;
  int total = 0;
  for (const auto& [name, count] : others) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " record" + (count == 1 ? "" : "s") + " of '" + name + "'";
    total += count;
  }
  return text + (total == 1 ? " is" : " are") + " for another target than '" + target +
         "' and not used (--target selects the target)";
}

std::string program_key(const std::string& workload_key, const std::vector<schedule::Step>& steps) {
  return workload_key + "|" + schedule::steps_to_json(steps).dump();
}

}  // namespace tunectl::log
