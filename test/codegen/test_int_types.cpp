// The integer types (int8 ... uint64): wrapping arithmetic, unsigned order
// and division, and conversions to and from float compute the reference
// evaluator's values in LLVM code, in the CUDA source run on the host and in
// the GPU emulator (and NVRTC compiles that source), over each type's whole
// range; and the bit functions (bitwise_*, logical shifts).
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "backend/backend.h"
#include "check/reference_check.h"
#include "codegen/cuda/cuda_codegen.h"
#include "log/log_test_util.h"
#include "lower/gpu_emulator.h"
#include "lower/interpreter.h"
#include "lower/lower.h"
#include "schedule/gpu_default_schedule.h"
#include "support/cuda_on_host.h"
#include "support/gpu_schedules.h"
#include "te/evaluate.h"

namespace tunectl {

namespace {

using ir::DType;
using ir::Expr;

const DType kIntTypes[] = {DType::Int8,   DType::UInt8, DType::Int16, DType::UInt16,
                           DType::Int32, DType::UInt32, DType::Int64, DType::UInt64};

// yi = (a + b) * b - a + (a < b ? max(a, b) : a / 7) + a % 5 + (T)((int64)a * 3)
// yf = (float)a - (float)b
// yb = ((a & b) | ~a) ^ (a << (b & 15)) ^ (b >> (a & 127)): shifts within and
//      past the width (which give 0), logical on signed types too
std::shared_ptr<const te::ComputeDAG> int_dag(DType t) {
  const int64_t n = 61;
  te::Tensor a = te::placeholder("a", {n}, t), b = te::placeholder("b", {n}, t);
  te::Tensor yi = te::compute(
      "yi", {n},
      [&](const std::vector<ir::Var>& i) {
        Expr x = te::read(a, {i[0]}), y = te::read(b, {i[0]});
        Expr seven = ir::make_int(7, t), five = ir::make_int(5, t), three = ir::make_int(3, DType::Int64);
        return (x + y) * y - x + ir::make_select(x < y, ir::make_max(x, y), x / seven) + x % five +
               ir::make_cast(t, ir::make_cast(DType::Int64, x) * three);
      },
      "elemwise", t);
  te::Tensor yf = te::compute(
      "yf", {n},
      [&](const std::vector<ir::Var>& i) {
        return ir::make_cast(DType::Float32, te::read(a, {i[0]})) - ir::make_cast(DType::Float32, te::read(b, {i[0]}));
      },
      "elemwise", DType::Float32);
  te::Tensor yb = te::compute(
      "yb", {n},
      [&](const std::vector<ir::Var>& i) {
        using ir::MathFunc;
        auto f = [](MathFunc fn, Expr x, Expr y) { return ir::make_call(fn, {x, y}); };
        Expr x = te::read(a, {i[0]}), y = te::read(b, {i[0]});
        Expr mixed = f(MathFunc::bitwise_or, f(MathFunc::bitwise_and, x, y), ir::make_call(MathFunc::bitwise_not, {x}));
        Expr left = f(MathFunc::shift_left, x, f(MathFunc::bitwise_and, y, ir::make_int(15, t)));
        Expr right = f(MathFunc::shift_right, y, f(MathFunc::bitwise_and, x, ir::make_int(127, t)));
        return f(MathFunc::bitwise_xor, f(MathFunc::bitwise_xor, mixed, left), right);
      },
      "elemwise", t);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{yi, yf, yb});
}

// Inputs over the type's whole range (random bits, wrapped), with some equal pairs.
std::vector<runtime::NDArray> int_inputs(const te::ComputeDAG& dag, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<runtime::NDArray> in;
  for (const te::Tensor& p : dag.placeholders()) {
    in.emplace_back(p->dtype(), p->shape());
    for (int64_t i = 0; i < in.back().num_elements(); ++i) in.back().set_int(i, static_cast<int64_t>(rng()));
  }
  for (int64_t i = 0; i < in[0].num_elements(); i += 7) in[1].set_int(i, in[0].get_int(i));
  return in;
}

using Runner = std::function<void(const lower::LoweredFunc&, std::vector<runtime::NDArray*>)>;

void check_int_types(bool gpu, const Runner& run) {
  for (DType t : kIntTypes) {
    INFO(ir::to_string(t));
    const auto dag = int_dag(t);
    const schedule::State s = gpu ? schedule::gpu_default_schedule(dag) : schedule::State::initial(dag);
    const lower::LoweredFunc f = lower::lower(s, "ints", gpu ? schedule::cuda_target() : backend::host_backend()->target());
    std::vector<runtime::NDArray> in = int_inputs(*dag, 11);
    std::vector<runtime::NDArray> want = te::evaluate(*dag, in);
    std::vector<runtime::NDArray> got = check::poisoned_outputs(*dag);
    std::vector<runtime::NDArray*> args{&in[0], &in[1], &got[0], &got[1], &got[2]};
    run(f, args);
    for (int64_t i = 0; i < want[0].num_elements(); ++i) {
      INFO("element " << i << ": a = " << in[0].get_int(i) << ", b = " << in[1].get_int(i));
      REQUIRE(got[0].get_int(i) == want[0].get_int(i));
      REQUIRE(got[1].get(i) == want[1].get(i));
      REQUIRE(got[2].get_int(i) == want[2].get_int(i));
    }
  }
}

}  // namespace

TEST_CASE("integer types compute the reference in LLVM code", "[cpu]") {
  check_int_types(false, [](const lower::LoweredFunc& f, std::vector<runtime::NDArray*> args) {
    std::vector<void*> raw = check::raw_pointers(args);
    backend::host_backend()->build(f)->run(raw.data());
  });
}

TEST_CASE("integer types compute the reference in CUDA source and in the GPU emulator", "[gpu-emulator]") {
  log::testing::ScratchDir dir;
  int k = 0;
  check_int_types(true, [&](const lower::LoweredFunc& f, std::vector<runtime::NDArray*> args) {
    const std::string folder = dir.file("t" + std::to_string(k++));
    std::filesystem::create_directories(folder);
    CHECK_NOTHROW(codegen::cuda::compile_cuda(f, schedule::cuda_target()));  // NVRTC takes the source too
    testing::CudaOnHost(std::vector<const lower::LoweredFunc*>{&f}, folder).run(f, args);
    // The emulator writes outputs of its own, which must agree too.
    runtime::NDArray yi(args[2]->dtype(), args[2]->shape()), yf(args[3]->dtype(), args[3]->shape()),
        yb(args[4]->dtype(), args[4]->shape());
    lower::run_with_packing(f, {args[0], args[1], &yi, &yf, &yb}, lower::emulate_gpu);
    for (int64_t i = 0; i < yi.num_elements(); ++i) {
      INFO("element " << i << ": a = " << args[0]->get_int(i) << ", b = " << args[1]->get_int(i));
      REQUIRE(yi.get_int(i) == args[2]->get_int(i));
      REQUIRE(yb.get_int(i) == args[4]->get_int(i));
    }
  });
}

}  // namespace tunectl
