#include "support/gpu_schedules.h"

#include <catch2/catch.hpp>

#include "ops/registry.h"

namespace tunectl::schedule {

int stage_named(const State& s, const std::string& name) {
  for (size_t i = 0; i < s.stages.size(); ++i)
    if (s.stages[i].op->name == name) return static_cast<int>(i);
  FAIL("no stage named " << name << " in\n" << s.to_string());
  return -1;
}

namespace {

// Fuses the first `count` leaves of stage st into one and, when the tile
// has more elements than `threads`, splits it so the inner part binds to
// threadIdx.x: a cooperative fetch. (The state keeps the stage's whole
// extents; lowering shrinks the loops to the tile at the attach point.)
void bind_cooperatively(State& s, int st, int count, int64_t tile_elements, int64_t threads) {
  std::vector<int> all;
  for (int i = 0; i < count; ++i) all.push_back(i);
  if (count > 1) s.apply(FuseStep{st, all});
  if (tile_elements > threads) {
    s.apply(SplitStep{st, 0, s.stages[st].leaf(0).extent, {threads}});
    s.apply(AnnotationStep{st, 1, "threadIdx.x"});
  } else {
    s.apply(AnnotationStep{st, 0, "threadIdx.x"});
  }
}

}  // namespace

State gpu_matmul(int64_t m, int64_t n, int64_t k, GpuTile ti, GpuTile tj, int64_t k_inner, bool shared) {
  State s = State::initial(std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", m}, {"N", n}, {"K", k}})));
  s.apply(CacheWriteStep{stage_named(s, "matmul"), "local"});
  const int out = stage_named(s, "matmul");
  s.apply(SplitStep{out, 0, m, {ti.vthreads, ti.threads, ti.inner}});  // i.0 i.1 i.2 i.3 j
  s.apply(SplitStep{out, 4, n, {tj.vthreads, tj.threads, tj.inner}});  // ... j.0 j.1 j.2 j.3
  s.apply(ReorderStep{out, {0, 4, 1, 5, 2, 6, 3, 7}});
  s.apply(FuseStep{out, {0, 1}});  // block
  s.apply(FuseStep{out, {1, 2}});  // vthread
  s.apply(FuseStep{out, {2, 3}});  // thread
  s.apply(AnnotationStep{out, 0, "blockIdx.x"});
  s.apply(AnnotationStep{out, 1, "vthread"});
  s.apply(AnnotationStep{out, 2, "threadIdx.x"});
  const int local = stage_named(s, "matmul.local");
  s.apply(ComputeAtStep{local, out, 2});
  s.apply(SplitStep{local, 2, k, {k_inner}});  // i j k.0 k.1
  s.apply(ReorderStep{local, {2, 3, 0, 1}});   // k.0 k.1 i j
  if (!shared) return s;
  const int64_t threads = ti.threads * tj.threads;
  for (const char* input : {"A", "B"}) {
    s.apply(CacheReadStep{stage_named(s, input), "shared", {stage_named(s, "matmul.local")}});
    const int cache = stage_named(s, std::string(input) + ".shared");
    s.apply(ComputeAtStep{cache, stage_named(s, "matmul.local"), 0});
    // A's tile is the block's rows by k_inner, B's k_inner by its columns.
    const int64_t rows = input[0] == 'A' ? ti.threads * ti.inner : k_inner;
    const int64_t cols = input[0] == 'A' ? k_inner : tj.threads * tj.inner;
    bind_cooperatively(s, cache, 2, rows * cols, threads);
  }
  return s;
}

target::Target cuda_target(const std::string& arch) {
  target::Target t;
  t.kind = target::TargetKind::Cuda;
  t.gpu = *target::gpu_facts_of_arch(arch);
  t.cpu = arch;
  t.features = {arch};
  return t;
}

State float16_conversions() {
  using ir::DType;
  const te::Tensor x = te::placeholder("x", {37}, DType::Float16);
  const te::Tensor d = te::placeholder("d", {37}, DType::Float64);
  const te::Tensor y = te::compute(
      "y", {37},
      [&](const std::vector<ir::Var>& i) {
        const ir::Expr h = te::read(x, {i[0]});
        const ir::Expr exp = ir::make_cast(DType::Float16, ir::make_call(ir::MathFunc::exp, {ir::make_cast(DType::Float32, h)}));
        const ir::Expr computed = ir::make_binary(ir::ExprKind::Max, h * ir::make_const(DType::Float16, 3.0) + h, exp);
        const ir::Expr as_int =
            ir::make_cast(DType::Float16, ir::make_cast(DType::Int32, h * ir::make_const(DType::Float16, 8.0)));
        return ir::make_select(h > ir::make_const(DType::Float16, 0.25), ir::make_cast(DType::Float16, te::read(d, {i[0]})),
                               computed + as_int);
      },
      "elemwise", DType::Float16);
  return gpu_default_schedule(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{y}));
}

}  // namespace tunectl::schedule
