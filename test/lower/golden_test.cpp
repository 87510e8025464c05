// Golden test: the printed loop IR of a small tiled matmul, compared with
// checked-in text. A change in lowering or simplification that alters the
// generated loops shows up as a diff of test/lower/golden/tiled_matmul.txt.
// TUNECTL_UPDATE_GOLDEN=1 rewrites the file instead (review the diff).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/printer.h"
#include "lower/lower.h"
#include "lower_check.h"

namespace tunectl::lower::test {

TEST_CASE("golden: tiled matmul loop IR", "[golden]") {
  using namespace schedule;
  State s = State::initial(op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}}));
  int mm = static_cast<int>(s.stages.size()) - 1;
  s.apply(SplitStep{mm, 0, 8, {4}});            // i.0 i.1 j k
  s.apply(SplitStep{mm, 2, 8, {4}});            // i.0 i.1 j.0 j.1 k
  s.apply(SplitStep{mm, 4, 8, {2}});            // i.0 i.1 j.0 j.1 k.0 k.1
  s.apply(ReorderStep{mm, {0, 2, 4, 1, 5, 3}});  // i.0 j.0 k.0 i.1 k.1 j.1
  s.apply(AnnotationStep{mm, 0, "parallel"});
  s.apply(AnnotationStep{mm, 5, "vectorize"});
  std::string text = ir::to_string(lower(s, "tiled_matmul").body);

  std::filesystem::path path = std::filesystem::path(__FILE__).parent_path() / "golden" / "tiled_matmul.txt";
  const char* update = std::getenv("TUNECTL_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << text;
    WARN("rewrote " << path.string());
  }
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream golden;
  golden << in.rdbuf();
  CHECK(text == golden.str());
}

}  // namespace tunectl::lower::test
