// Which accesses of a vectorized loop become CUDA vector accesses (float2,
// float4): a loop `vectorize v in [0, n)`, n = 2 or 4, whose body is one
// float32 store to buffer[base + v] of a buffer in memory that is 16-byte
// aligned (the kernel's arguments, shared and local arrays), base a
// multiple of n in every term (so base + 0 is n-aligned, given buffers
// aligned to 16 bytes), turns into one vector store; each float32 load of
// such a buffer at [base' + v], base' likewise aligned, into one vector
// load. Everything else in the stored value is computed lane by lane. A
// loop that reads the stored buffer elsewhere than where it stores is left
// alone (lanes would see each other's results in a different order). A store
// that is not such a lane index (a tile stored in another axis order) is
// written lane by lane while its loads stay vector loads, as long as there
// is one.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ir/stmt.h"

namespace tunectl::codegen::cuda {

struct VectorPlan {
  int lanes = 0;
  const ir::StoreNode* store = nullptr;
  bool vector_store = true;  // false: the lanes stored one by one
  std::vector<const ir::LoadNode*> loads;  // the vector loads, in first-use order
};

// nullopt when the loop's accesses do not fit (the loop stays a loop).
// `aligned` says which buffers are in aligned memory.
std::optional<VectorPlan> plan_vector_access(const ir::ForNode* loop,
                                             const std::function<bool(const ir::Buffer&)>& aligned);

}  // namespace tunectl::codegen::cuda
