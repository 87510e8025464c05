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

// Writes the input to a file named `name` in a folder of this process's own
// and returns its path.
inline std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("tunectl-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    spdlog::set_level(spdlog::level::off);  // warnings about odd inputs are expected, by the million
    return d;
  }();
  const std::string path = (dir / name).string();
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
