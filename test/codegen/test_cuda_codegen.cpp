// CUDA C generation and NVRTC without a GPU: the resource report is parsed,
// a kernel that spills is refused before it could run, and the source
// carries what the schedule says (launch bounds, guards, unrolling, shared
// arrays, barriers); float16 is converted with PTX's cvt and computes what
// the reference does.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "codegen/cuda/cuda_codegen.h"
#include "codegen/cuda/cuda_source.h"
#include "codegen/cuda/nvrtc.h"
#include "ir/error.h"
#include "check/reference_check.h"
#include "log/log_test_util.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "support/cuda_on_host.h"
#include "schedule/gpu_default_schedule.h"
#include "schedule/state.h"
#include "support/gpu_schedules.h"

namespace tunectl::codegen::cuda {

namespace {

void require_nvrtc() {
  std::string why;
  // The CUDA Toolkit is on every machine that runs the tests (README).
  if (!nvrtc_available(&why)) FAIL(why);
}

// Runs f's CUDA C on the host (CudaOnHost) on `trials` sets of random
// inputs and checks each against the reference of s's DAG.
void check_on_host(const schedule::State& s, const lower::LoweredFunc& f, int trials) {
  log::testing::ScratchDir dir;
  const testing::CudaOnHost host({&f}, dir.file(""));
  check::CheckResult r = check::check_against_reference(
      *s.dag, [&](const std::vector<runtime::NDArray*>& args) { host.run(f, args); }, trials);
  INFO(r.message);
  CHECK(r.ok);
}

}  // namespace

TEST_CASE("ptxas's verbose report is read per kernel", "[unit]") {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
      "ptxas info    : Function properties for k1\n"
      "    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 64 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
      "ptxas info    : Function properties for k2\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n";
  const auto r = parse_ptxas_report(log);
  REQUIRE(r.size() == 2);
  CHECK(r.at("k1").registers == 64);
  CHECK(r.at("k1").spill_store_bytes == 8);
  CHECK(r.at("k1").spill_load_bytes == 12);
  CHECK(r.at("k1").shared_bytes == 2048);
  CHECK(r.at("k1").stack_bytes == 24);
  CHECK(r.at("k2").registers == 10);
  CHECK(r.at("k2").shared_bytes == 0);
}

TEST_CASE("the CUDA source says what the schedule says", "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm80 = schedule::cuda_target("sm_80");
  // 20 rows in tiles of 8: the thread loops are guarded.
  const schedule::State s = schedule::gpu_matmul(20, 12, 10, {1, 4, 2}, {1, 2, 3}, 3);
  const lower::LoweredFunc f = lower::lower(s, "mm", sm80);
  const std::string src = cuda_source(f);
  CHECK_THAT(src, Catch::Contains("extern \"C\" __global__ void __launch_bounds__(8) mm("));
  CHECK_THAT(src, Catch::Contains("const float* __restrict__ b_A"));
  CHECK_THAT(src, Catch::Contains("float* __restrict__ b_matmul"));
  CHECK_THAT(src, Catch::Contains("__shared__ __align__(16) float b_A_shared["));
  CHECK_THAT(src, Catch::Contains("__syncthreads();"));
  CHECK_THAT(src, Catch::Contains("= threadIdx.x;"));
  CHECK_THAT(src, Catch::Contains("= blockIdx.x;"));
  const CudaBinary b = compile_cuda(f, sm80);
  CHECK(b.compiled.resources.at("mm").shared_bytes > 0);
  // The same schedule lowered without the GPU passes (no barriers) is refused.
  CHECK_THROWS_AS(cuda_source(lower::lower(s, "mm", target::Target{})), InternalError);
  // The source computes the reference when run on the CPU, barriers and all.
  check_on_host(s, f, 5);
  CHECK(b.launch.block == std::array<int64_t, 3>{8, 1, 1});
  CHECK_THAT(b.compiled.ptx, Catch::Contains(".target sm_80"));
}

TEST_CASE("indices are 32-bit where every index expression stays within 32 bits", "[gpu-emulator]") {
  const target::Target sm90 = schedule::cuda_target("sm_90");
  // A 4096^3 matmul makes 2^36 multiply-adds, but no index of it passes
  // 2^24: loop variables, constants and index arithmetic are int.
  const std::string gemm =
      cuda_source(lower::lower(schedule::gpu_matmul(4096, 4096, 4096, {2, 16, 4}, {2, 16, 4}, 8), "gemm", sm90));
  CHECK_THAT(gemm, Catch::Contains("const unsigned v_"));
  CHECK_THAT(gemm, !Catch::Contains("long long"));
  // A 65536 x 65536 ReLU, one thread per element: its fused index reaches
  // 2^32, so every index is 64-bit.
  const auto relu = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("relu", {{"shape", {65536, 65536}}}));
  const std::string wide = cuda_source(lower::lower(schedule::gpu_default_schedule(relu), "relu", sm90));
  CHECK_THAT(wide, Catch::Contains("const long long v_"));
  // Tiled kernels run on the host as CUDA C compute the reference with
  // 32-bit indices ("the CUDA source says what the schedule says", above).
}

TEST_CASE("a double-buffered kernel stages its tiles in registers and asks for 16 warps per SM", "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  schedule::State s = schedule::gpu_matmul(64, 64, 32, {1, 8, 2}, {1, 8, 2}, 4);
  for (const char* tile : {"A.shared", "B.shared"})
    s.apply(schedule::PragmaStep{schedule::stage_named(s, tile), 0, "double_buffer"});
  const lower::LoweredFunc f = lower::lower(s, "db", sm90);
  const std::string src = cuda_source(f);
  // 64 threads per block: 8 blocks make 16 warps.
  CHECK_THAT(src, Catch::Contains("__launch_bounds__(64, 8) db("));
  CHECK_THAT(src, Catch::Contains("__shared__ __align__(16) float b_A_shared_0["));
  CHECK_THAT(src, Catch::Contains("__shared__ __align__(16) float b_A_shared_1["));
  CHECK_THAT(src, Catch::Contains("__align__(16) float b_A_shared_staged["));
  CHECK_THAT(cuda_source(lower::lower(schedule::gpu_matmul(64, 64, 32, {1, 8, 2}, {1, 8, 2}, 4), "plain", sm90)),
             Catch::Contains("__launch_bounds__(64) plain("));
  const CudaBinary b = compile_cuda(f, sm90);
  CHECK(b.compiled.resources.at("db").shared_bytes == 2 * 2 * 16 * 4 * 4);
  check_on_host(s, f, 5);
}

// bench --core's hand SGEMM at n^3 (blocks of 256 threads, 2 x 2 vthreads
// of 4 x 4, k in steps of 8, the inner k loop unrolled), both tiles
// double-buffered; with k_major, A's 128 x 8 tile stored k-major.
namespace {
schedule::State hand_sgemm(int64_t n, bool k_major) {
  const auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", n}, {"N", n}, {"K", n}}));
  const std::string e = std::to_string(n), e2 = std::to_string(n * n);
  return schedule::replay(dag, schedule::steps_from_json(nlohmann::json::parse(R"([
    ["CHW", 2, "local"], ["SP", 3, 0, )" + e + R"(, [2, 16, 4], true], ["SP", 3, 4, )" + e + R"(, [2, 16, 4], true],
    ["RE", 3, [0, 4, 1, 5, 2, 6, 3, 7]], ["FU", 3, [0, 1]], ["FU", 3, [1, 2]], ["FU", 3, [2, 3]],
    ["AN", 3, 0, "blockIdx.x"], ["AN", 3, 1, "vthread"], ["AN", 3, 2, "threadIdx.x"],
    ["CA", 2, 3, 2], ["SP", 2, 2, )" + e + R"(, [8], true], ["RE", 2, [2, 3, 0, 1]],
    ["CHR", 0, "shared", [2]], )" + (k_major ? R"(["SO", 1, [1, 0]], )" : "") + R"(["CA", 1, 3, 0], ["FU", 1, [0, 1]],
    ["SP", 1, 0, )" + e2 + R"(, [256, 4], true], ["AN", 1, 1, "threadIdx.x"], ["AN", 1, 2, "vectorize"],
    ["CHR", 2, "shared", [3]], ["CA", 3, 4, 0], ["FU", 3, [0, 1]], ["SP", 3, 0, )" + e2 + R"(, [256, 4], true],
    ["AN", 3, 1, "threadIdx.x"], ["AN", 3, 2, "vectorize"], ["PR", 4, 0, "auto_unroll_max_step$512"],
    ["PR", 1, 0, "double_buffer"], ["PR", 3, 0, "double_buffer"]])")));
}
}  // namespace

TEST_CASE("a shared tile stored k-major is filled with float4 loads and a store per lane, and computes the reference",
          "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  const schedule::State s = hand_sgemm(128, true);
  const lower::LoweredFunc f = lower::lower(s, "sgemm", sm90);
  const std::string src = cuda_source(f);
  INFO(src);
  // A row-major 4-float piece of A lands in 4 rows of the k-major tile, 128 apart.
  CHECK_THAT(src, Catch::Contains("= *reinterpret_cast<const float4*>(&b_A["));
  CHECK_THAT(src, Catch::Contains("* (128))) + (v_ax0_ax1__1 / (2)))] = tc_v"));
  // The consumer reads A's tile at k * 128 + its row, the vthreads inside
  // the unrolled inner k loop.
  CHECK_THAT(src, Catch::Contains("b_A_shared_0[((((v_rk_1 * (128))"));
  std::string squeezed = src;
  std::erase_if(squeezed, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  CHECK_THAT(squeezed, Catch::Contains("#pragmaunrollfor(unsignedv_rk_1=(0);v_rk_1<(0)+(8);++v_rk_1){"
                                       "#pragmaunrollfor(unsignedv_matmul_i0_1_matmul_i1_1_=(0);"));
  // Two blocks of 256 threads per SM (128 registers) without a spill.
  const CudaBinary b = compile_cuda(f, sm90);
  CHECK_THAT(b.source, Catch::Contains("__launch_bounds__(256, 2) sgemm("));
  CHECK(b.compiled.resources.at("sgemm").registers <= 128);
  CHECK(b.compiled.resources.at("sgemm").spill_store_bytes == 0);
  check_on_host(s, f, 5);
}

TEST_CASE("a double-buffered kernel that spills under the occupancy hint is compiled again without it",
          "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  // A's tile row-major: its fragments are scalar loads, kept longer.
  const schedule::State s = hand_sgemm(128, false);
  const lower::LoweredFunc f = lower::lower(s, "sgemm", sm90);
  CHECK_THAT(cuda_source(f), Catch::Contains("__launch_bounds__(256, 2) sgemm("));
  const CudaBinary b = compile_cuda(f, sm90);
  CHECK_THAT(b.source, Catch::Contains("__launch_bounds__(256) sgemm("));
  CHECK(b.compiled.resources.at("sgemm").registers > 128);
  CHECK(b.compiled.resources.at("sgemm").spill_store_bytes == 0);
  check_on_host(s, f, 5);
}

TEST_CASE("a shared tile filled inside a double-buffered loop is declared once", "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  // B's tile double-buffered at k.0; A's tile filled at k.1, inside the
  // loop that double_buffer unrolls by two: its allocation is copied.
  schedule::State s = schedule::gpu_matmul(64, 64, 32, {1, 8, 2}, {1, 8, 2}, 4);
  const int local = schedule::stage_named(s, "matmul.local");
  s.apply(schedule::ComputeAtStep{schedule::stage_named(s, "A.shared"), local, 1});
  s.apply(schedule::PragmaStep{schedule::stage_named(s, "B.shared"), 0, "double_buffer"});
  const lower::LoweredFunc f = lower::lower(s, "mm", sm90);
  const std::string src = cuda_source(f);
  INFO(src);
  const std::string declaration = "__shared__ __align__(16) float b_A_shared[";
  REQUIRE(src.find(declaration) != std::string::npos);
  CHECK(src.find(declaration) == src.rfind(declaration));
  CHECK_NOTHROW(compile_cuda(f, sm90));
  check_on_host(s, f, 5);
}

TEST_CASE("a kernel that spills registers is refused before it runs", "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  // 1024 threads leave 64 registers each; 8x16 accumulators per thread, all
  // unrolled, do not fit.
  schedule::State s = schedule::gpu_matmul(256, 512, 64, {1, 32, 8}, {1, 32, 16}, 8, /*shared=*/false);
  const int local = schedule::stage_named(s, "matmul.local");
  s.apply(schedule::AnnotationStep{local, 1, "unroll"});
  s.apply(schedule::AnnotationStep{local, 2, "unroll"});
  s.apply(schedule::AnnotationStep{local, 3, "unroll"});
  CHECK_THROWS_AS(compile_cuda(lower::lower(s, "big", sm90), sm90), UserError);
  CHECK_THROWS_WITH(compile_cuda(lower::lower(s, "big", sm90), sm90), Catch::Contains("kernel big spills registers"));
}

namespace {

// add(a, b) on rows of `cols`, each thread `lanes` consecutive elements of a
// vectorized loop, 32 threads per block.
lower::LoweredFunc vectorized_add(int64_t rows, int64_t cols, int64_t lanes) {
  auto dag = std::make_shared<const te::ComputeDAG>(
      ops::make_op_dag("add", {{"a_shape", {rows, cols}}, {"b_shape", {rows, cols}}}));
  schedule::State s = schedule::State::initial(dag);
  const int add = schedule::stage_named(s, "add");
  s.apply(schedule::SplitStep{add, 1, cols, {lanes}});  // i j.0 j.1
  s.apply(schedule::FuseStep{add, {0, 1}});
  s.apply(schedule::SplitStep{add, 0, rows * ((cols + lanes - 1) / lanes), {32}});
  s.apply(schedule::AnnotationStep{add, 0, "blockIdx.x"});
  s.apply(schedule::AnnotationStep{add, 1, "threadIdx.x"});
  s.apply(schedule::AnnotationStep{add, 2, "vectorize"});
  return lower::lower(s, "vadd", schedule::cuda_target());
}

}  // namespace

TEST_CASE("vectorized loops of aligned float32 accesses use vector loads and stores", "[gpu-emulator]") {
  require_nvrtc();
  SECTION("float4") {
    const lower::LoweredFunc f = vectorized_add(8, 32, 4);
    const std::string src = cuda_source(f);
    CHECK_THAT(src, Catch::Contains("*reinterpret_cast<const float4*>(&b_a["));
    CHECK_THAT(src, Catch::Contains("*reinterpret_cast<float4*>(&b_add["));
    const CudaBinary b = compile_cuda(f, schedule::cuda_target());
    CHECK_THAT(b.compiled.ptx, Catch::Contains("ld.global.nc.v4.f32"));
    CHECK_THAT(b.compiled.ptx, Catch::Contains("st.global.v4.f32"));
  }
  SECTION("float2") {
    CHECK_THAT(cuda_source(vectorized_add(8, 32, 2)), Catch::Contains("float2"));
  }
  SECTION("rows of 30 are not 4-aligned: scalar accesses") {
    const std::string src = cuda_source(vectorized_add(8, 30, 4));
    CHECK_THAT(src, !Catch::Contains("float4"));
    CHECK_THAT(src, Catch::Contains("#pragma unroll"));
  }
}


TEST_CASE("every math function compiles with NVRTC and computes the reference", "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  std::vector<std::pair<ir::MathFunc, ir::DType>> cases;
#define TUNECTL_MATH_CASE(name, arity) \
  if (arity == 1) cases.emplace_back(ir::MathFunc::name, ir::is_bit_func(ir::MathFunc::name) ? ir::DType::Int32 : ir::DType::Float32);
  TUNECTL_MATH_FUNCS(TUNECTL_MATH_CASE)
#undef TUNECTL_MATH_CASE
  cases.emplace_back(ir::MathFunc::abs, ir::DType::Int64);
  cases.emplace_back(ir::MathFunc::abs, ir::DType::Int32);
  cases.emplace_back(ir::MathFunc::sin, ir::DType::Float64);
  log::testing::ScratchDir dir;
  for (const auto& [func, dtype] : cases) {
    INFO(ir::to_string(func) << " of " << ir::to_string(dtype));
    const te::Tensor x = te::placeholder("x", {37}, dtype);
    const te::Tensor y = te::compute(
        "y", {37},
        [&](const std::vector<ir::Var>& i) {
          ir::Expr v = te::read(x, {i[0]});
          // Random inputs lie in [-1, 1) (or [0.5, 1.5) for log and sqrt): acosh needs >= 1.
          if (func == ir::MathFunc::acosh) v = v * v + ir::make_const(dtype, 1);
          return ir::make_call(func, {v});
        },
        "elemwise", dtype);
    const auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{y});
    const lower::LoweredFunc f = lower::lower(schedule::gpu_default_schedule(dag), "math", sm90);
    CHECK_NOTHROW(compile_cuda(f, sm90));
    const std::string folder = dir.file(ir::to_string(func) + std::string(ir::to_string(dtype)));
    std::filesystem::create_directories(folder);
    const testing::CudaOnHost host({&f}, folder);
    check::CheckResult r = check::check_against_reference(
        *dag, [&](const std::vector<runtime::NDArray*>& args) { host.run(f, args); }, 3);
    INFO(r.message);
    CHECK(r.ok);
  }
}

TEST_CASE("float16 is stored as its bits and computed in float32, as on the CPU", "[gpu-emulator]") {
  require_nvrtc();
  const target::Target sm90 = schedule::cuda_target("sm_90");
  const schedule::State s = schedule::float16_conversions();
  const lower::LoweredFunc f = lower::lower(s, "half", sm90);
  const std::string src = cuda_source(f);
  CHECK_THAT(src, Catch::Contains("const unsigned short* __restrict__ b_x"));
  const CudaBinary b = compile_cuda(f, sm90);
  CHECK_THAT(b.compiled.ptx, Catch::Contains("cvt.f32.f16"));
  CHECK_THAT(b.compiled.ptx, Catch::Contains("cvt.rn.f16.f32"));
  CHECK_THAT(b.compiled.ptx, Catch::Contains("cvt.rn.f16.f64"));
  check_on_host(s, f, 3);
}

}  // namespace tunectl::codegen::cuda
