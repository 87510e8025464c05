// What the fuzz targets share: the input as a file (the readers under test
// take paths, as the command line does) and the rule they check. A reader
// may refuse any input with a UserError; any other exception, a crash, a
// sanitizer report, a hang or a runaway allocation is a bug that libFuzzer
// reports and `scripts/fuzz.sh` keeps the input of.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <spdlog/spdlog.h>

#include "ir/error.h"

namespace tunectl::fuzz {

// A folder of this process's own for the input files, removed at exit.
struct InputFolder {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("tunectl-fuzz-" + std::to_string(::getpid()));
  InputFolder() {
    std::filesystem::create_directories(path);
    spdlog::set_level(spdlog::level::off);  // warnings about odd inputs are expected, by the million
  }
  ~InputFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Writes the input to a file named `name` in that folder and returns its path.
inline std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  static const InputFolder dir;
  const std::string path = (dir.path / name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                              static_cast<std::streamsize>(size));
  return path;
}

// Runs f, which reads an input; a UserError is its refusal, and fine.
template <typename F>
void refusal_allowed(F f) {
  try {
    f();
  } catch (const UserError&) {
  }
}

}  // namespace tunectl::fuzz
