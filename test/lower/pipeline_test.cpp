// The lowering pipeline (lower/lower.h): schedule_to_loops, then the
// target's passes in the order passes_for lists them; the observer sees the
// function after each step, and the last one it sees is what lower returns.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ir/functor.h"
#include "lower/lower.h"
#include "ops/registry.h"

namespace tunectl::lower::test {

namespace {

// Index counts of every Load and Store it passes.
class AccessRanks : public ir::IRMutator {
 public:
  std::vector<size_t> ranks;

 protected:
  ir::Expr mutate_Load(const ir::Expr& e, const ir::LoadNode* op) override {
    ranks.push_back(op->indices.size());
    return IRMutator::mutate_Load(e, op);
  }
  ir::Stmt mutate_Store(const ir::Stmt& s, const ir::StoreNode* op) override {
    ranks.push_back(op->indices.size());
    return IRMutator::mutate_Store(s, op);
  }
};

std::vector<size_t> access_ranks(const ir::Stmt& s) {
  AccessRanks counter;
  counter.mutate(s);
  return counter.ranks;
}

}  // namespace

TEST_CASE("lower runs schedule_to_loops and then the target's passes in order", "[unit]") {
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 4}}));
  schedule::State state = schedule::State::initial(dag);
  state.apply(schedule::SplitStep{2, 0, 8, {4}, true});

  std::vector<std::string> steps;
  std::vector<std::string> texts;
  std::vector<std::vector<size_t>> ranks;
  LoweredFunc f = lower(state, "mm", target::Target{}, [&](std::string_view step, const LoweredFunc& g) {
    steps.emplace_back(step);
    texts.push_back(to_string(g));
    ranks.push_back(access_ranks(g.body));
  });

  std::vector<std::string> expected{"schedule_to_loops"};
  for (const Pass& p : passes_for(target::TargetKind::Llvm)) expected.emplace_back(p.name);
  CHECK(steps == expected);
  CHECK(expected ==
        std::vector<std::string>{"schedule_to_loops", "flatten_buffers", "simplify_loops", "partition_loops",
                                 "promote_accumulators"});
  // Multi-dimensional accesses until flatten_buffers, one index after it.
  for (size_t r : ranks.front()) CHECK(r == 2);
  for (size_t k = 1; k < ranks.size(); ++k)
    for (size_t r : ranks[k]) CHECK(r == 1);
  // simplify_loops folds the split's (i0 * 4 + i1) * 8 into i0 * 32 + i1 * 8.
  CHECK(texts[1].find("(mm_i0.0 * 4 + mm_i0.1) * 8") == std::string::npos);
  CHECK(texts[1] != texts[2]);
  CHECK(texts.back() == to_string(f));
  CHECK(to_string(f).rfind("func mm(A[float32 * 8 * 4], B[float32 * 4 * 8], matmul[float32 * 8 * 8])\n", 0) == 0);
  // Without an observer, the same function.
  CHECK(to_string(lower(state, "mm")) == to_string(f));
}

}  // namespace tunectl::lower::test
