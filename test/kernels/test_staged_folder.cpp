// The staged output folder (kernels/staged_folder.h): replaced whole on
// commit, left as it was without one, partial folders of killed writers
// cleaned up, and a folder of the user's never replaced.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "ir/error.h"
#include "kernels/staged_folder.h"
#include "log/log_test_util.h"

namespace tunectl::kernels {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using log::testing::ScratchDir;
using log::testing::user_error;

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The entries of a folder, "name" each.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("a staged folder replaces the old one whole on commit, or leaves it as it was", "[unit]") {
  ScratchDir scratch;
  const fs::path dir = scratch.file("out");
  {
    StagedFolder first(dir.string(), "manifest.json");
    write(fs::path(first.path()) / "manifest.json", "1");
    write(fs::path(first.path()) / "a.o", "a");
    CHECK(!fs::exists(dir));
    first.commit();
  }
  CHECK(entries(dir) == std::vector<std::string>{"a.o", "manifest.json"});
  {
    StagedFolder failed(dir.string(), "manifest.json");
    write(fs::path(failed.path()) / "manifest.json", "2");
    // destroyed without commit: an error on the way
  }
  CHECK(read(dir / "manifest.json") == "1");
  {
    StagedFolder second(dir.string() + "/", "manifest.json");
    write(fs::path(second.path()) / "manifest.json", "3");
    second.commit();
  }
  CHECK(entries(dir) == std::vector<std::string>{"manifest.json"});
  CHECK(read(dir / "manifest.json") == "3");
  CHECK(entries(scratch.file("")) == std::vector<std::string>{"out"});  // no partial folder left
}

TEST_CASE("the partial folder of a killed writer is removed by the next one", "[unit]") {
  ScratchDir scratch;
  const fs::path dir = scratch.file("out");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    StagedFolder staged(dir.string(), "manifest.json");
    write(fs::path(staged.path()) / "half", "x");
    ::_exit(0);  // as a kill would: no destructor runs
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  const fs::path abandoned = scratch.file(".out.partial-" + std::to_string(pid));
  REQUIRE(fs::exists(abandoned / "half"));
  StagedFolder next(dir.string(), "manifest.json");
  CHECK(!fs::exists(abandoned));
}

TEST_CASE("a folder that is not one of tunectl's is never replaced", "[unit]") {
  ScratchDir scratch;
  const fs::path dir = scratch.file("mine");
  fs::create_directories(dir);
  write(dir / "notes.txt", "keep");
  CHECK_THAT(user_error([&] { StagedFolder staged(dir.string(), "manifest.json"); }),
             Contains("is a folder with files of its own (no manifest.json)"));
  write(scratch.file("file"), "x");
  CHECK_THAT(user_error([&] { StagedFolder staged(scratch.file("file"), "manifest.json"); }),
             Contains("exists and is not a folder"));
  CHECK(read(dir / "notes.txt") == "keep");
}

}  // namespace
}  // namespace tunectl::kernels
