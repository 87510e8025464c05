// Ahead-of-time outputs: assembly text and relocatable ELF object files that
// define the kernel symbol.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "backend/backend.h"
#include "ir/error.h"
#include "kernel_fixture.h"

using namespace tunectl;
using ir::Buffer;
using ir::DType;
using ir::ForKind;
using ir::Var;

namespace {

lower::LoweredFunc parallel_add(const std::string& name) {
  const int64_t n = 256;
  Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
  Var i("i"), j("j");
  auto store = ir::make_store(c, {i * 32 + j}, ir::make_load(a, {i * 32 + j}) + 1.0);
  return {name, {a, c}, ir::make_for(i, 0, n / 32, ForKind::Parallel, ir::make_for(j, 0, 32, ForKind::Vectorized, store))};
}

}  // namespace

TEST_CASE("emit_object_file writes an ELF object defining the kernel", "[cpu]") {
  auto path = std::filesystem::temp_directory_path() / ("tunectl_emit_" + std::to_string(::getpid()) + ".o");
  codegen::emit_object_file(parallel_add("kernel_obj"), test::host(), path.string());
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 64);
  CHECK(bytes.compare(0, 4, "\x7f" "ELF") == 0);
  CHECK(bytes[16] == 1);  // e_type ET_REL (little endian)
  // nm: the kernel is a defined text symbol; the pool entry is undefined.
  std::string cmd = "nm " + path.string() + " | grep -q ' T kernel_obj$'";
  CHECK(std::system(cmd.c_str()) == 0);
  cmd = "nm " + path.string() + " | grep -q ' U tunectl_parallel_for$'";
  CHECK(std::system(cmd.c_str()) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("emit_object_file reports an unwritable path as an operating-system error naming it", "[cpu][error]") {
  REQUIRE_THROWS_AS(codegen::emit_object_file(parallel_add("k"), test::host(), "/nonexistent-dir/k.o"), SystemError);
  REQUIRE_THROWS_WITH(codegen::emit_object_file(parallel_add("k"), test::host(), "/nonexistent-dir/k.o"),
                      Catch::Matchers::Contains("cannot write an object file: open(/nonexistent-dir/k.o): "));
}

TEST_CASE("emit_assembly targets the host's vector registers", "[cpu]") {
  std::string text = codegen::emit_assembly(parallel_add("kernel_asm"), test::host());
  CHECK(text.find("kernel_asm:") != std::string::npos);
  // 16 fp32 lanes per chunk: one zmm register where the host has AVX-512.
  const char* reg = __builtin_cpu_supports("avx512f") ? "%zmm" : "mm";
  CHECK(text.find(reg) != std::string::npos);
}

TEST_CASE("a JIT kernel object can be moved and still runs", "[cpu]") {
  auto func = parallel_add("moved");
  codegen::JitKernel first = codegen::jit_compile(func, test::host());
  codegen::JitKernel second = std::move(first);
  CHECK(second.name() == "moved");
  auto a = test::random_floats(256, -1, 1, 17);
  test::AlignedArray<float> c(256);
  void* args[] = {a.data(), c.data()};
  second.run(args);
  for (int k = 0; k < 256; ++k) REQUIRE(c[k] == a[k] + 1.0f);
}
