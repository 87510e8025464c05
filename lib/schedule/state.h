// The search state of one task: a light loop structure per stage plus the
// history of steps that produced it (Ansor's State). Lowering turns a State
// into loop IR; search mutates States; the log stores only the history, since
// replaying it on the initial state (State::initial) reproduces the State.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "schedule/steps.h"
#include "te/compute_dag.h"

namespace tunectl::schedule {

#define TUNECTL_ITER_ANNOTATIONS(X) \
  X(None, "none")                   \
  X(Parallel, "parallel")           \
  X(Vectorize, "vectorize")         \
  X(Unroll, "unroll")               \
  X(BlockX, "blockIdx.x")           \
  X(BlockY, "blockIdx.y")           \
  X(BlockZ, "blockIdx.z")           \
  X(ThreadX, "threadIdx.x")         \
  X(ThreadY, "threadIdx.y")         \
  X(ThreadZ, "threadIdx.z")         \
  X(VThread, "vthread")

enum class IterAnnotation : uint8_t {
#define TUNECTL_ANN_ENUM(name, text) name,
  TUNECTL_ITER_ANNOTATIONS(TUNECTL_ANN_ENUM)
#undef TUNECTL_ANN_ENUM
};
const char* to_string(IterAnnotation a);
IterAnnotation iter_annotation_from_string(const std::string& s);  // UserError if unknown

// One loop of a stage.
struct Iterator {
  int id = -1;  // index in Stage::iters; stable for the life of the stage
  std::string name;
  int64_t extent = 0;
  ir::IterKind kind = ir::IterKind::Spatial;
  IterAnnotation annotation = IterAnnotation::None;
};

// parent = ((c0 * e1 + c1) * e2 + c2) ... for children c0..cn outer to inner
// with extents e0..en. The children's extents may cover more than the
// parent's (a factor that does not divide): lowering then guards the body.
struct SplitRelation {
  int parent = -1;
  std::vector<int> children;
};

// child = fused value of parents (outer to inner); parents recover by
// floordiv/floormod with the inner extents.
struct FuseRelation {
  std::vector<int> parents;
  int child = -1;
};

using IterRelation = std::variant<SplitRelation, FuseRelation>;

enum class AttachKind : uint8_t { Root, Inline, Iter };

// Where a stage is computed: at the root of the kernel, inlined into its
// readers, or inside the body of one loop of another stage.
struct Attach {
  AttachKind kind = AttachKind::Root;
  int target_stage = -1;  // AttachKind::Iter only
  int target_iter = -1;   // iterator id (not position) in the target stage
};

struct Stage {
  // What the stage computes (placeholders have a stage too and take no
  // steps). Cache and rfactor steps replace ops, so this may differ from the
  // DAG's op at the same index.
  te::Tensor op;
  // Every iterator the stage ever had, indexed by id. Ids 0..k-1 are the root
  // axes: op's spatial axes, then the reduce axes of its Reduce body.
  std::vector<Iterator> iters;
  // The current loop nest, outer to inner, as iterator ids.
  std::vector<int> leaves;
  // Split and fuse relations in the order they were made.
  std::vector<IterRelation> relations;
  Attach attach;
  // Pragma auto_unroll_max_step: unroll inner loops whose product of extents
  // is at most this (0 = off).
  int auto_unroll_max_step = 0;
  // Pragma double_buffer (a shared cache stage): two copies of the tile,
  // the next one fetched while the current one is used (lower/double_buffer.h).
  bool double_buffer = false;
  // A copy of a constant computed once outside the kernel (PrepackStep).
  bool prepacked = false;
  // The memory order of the stage's buffer's axes, outermost first; empty:
  // row-major (StorageOrderStep).
  std::vector<int> storage_order;

  int num_root_iters() const;
  const Iterator& leaf(int position) const { return iters.at(leaves.at(position)); }
  // Position of iterator id in leaves, or -1 when it is not a leaf.
  int leaf_position(int iter_id) const;
};

// A fresh stage for op with its natural loops (root axes as leaves).
Stage make_stage(const te::Tensor& op);

struct State {
  std::shared_ptr<const te::ComputeDAG> dag;
  // One per DAG op at first (placeholders included, DAG order); cache_read,
  // cache_write and rfactor insert stages.
  std::vector<Stage> stages;
  // Every step applied so far, in order.
  std::vector<Step> history;

  // The unscheduled state of a DAG: one root stage per op, no steps.
  static State initial(std::shared_ptr<const te::ComputeDAG> dag);

  // Applies step (validating it: UserError with a clear message when it does
  // not fit this state) and appends it to history. For steps a user wrote.
  void apply(const Step& step);
  // Applies step like apply and returns nullopt; when it does not fit, leaves
  // the state as it was and returns why. For steps the search proposes,
  // where a step that does not fit is an ordinary outcome, not an error.
  std::optional<std::string> try_apply(const Step& step);

  // A readable loop-structure listing (one line per loop, annotations,
  // attach points), deterministic: two equal states print the same.
  std::string to_string() const;
};

// Replays steps on State::initial(dag): UserError when one does not fit.
State replay(std::shared_ptr<const te::ComputeDAG> dag, const std::vector<Step>& steps);
// The same, nullopt when a step does not fit (a mutated history).
std::optional<State> try_replay(std::shared_ptr<const te::ComputeDAG> dag, const std::vector<Step>& steps);
// A copy of s edited by `edit` (which applies steps with apply), or nullopt
// when one of its steps does not fit: how a sketch rule or an annotation
// that may not apply to a state is tried.
std::optional<State> try_edit(const State& s, const std::function<void(State&)>& edit);

// Structural equality: same stages (ops compared by canonical structure),
// iterators, relations, attach points and history.
bool states_equal(const State& a, const State& b);

}  // namespace tunectl::schedule
