// Fill nests of GPU kernels: the loops and branches around one store with
// which the threads of a block fill a shared tile cooperatively (a cache-read
// stage's loops, thread-bound ones among them). What double_buffer stages in
// registers and unroll_fills unrolls.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "ir/stmt.h"

namespace tunectl::lower {

// A loop that every thread of the block runs once with its own index; any
// other loop (vthread ones included) runs its iterations in one thread.
bool is_thread_loop(const ir::ForNode* loop);

// The elements of the tile one thread stores: the product of the extents of
// the fill nest's loops that run in one thread. nullopt when s is not a fill
// nest (loops and branches around one store) or a loop's extent is not a
// constant.
std::optional<int64_t> staged_elements(const ir::Stmt& s);

// The store at the bottom of a fill nest.
const ir::StoreNode* fill_store(const ir::Stmt& s);

// The fill nest s with its store replaced by make(store, index), index the
// store's position among the elements the thread stores (counting on from
// `index`). The loops that run in one thread are unrolled.
using StoreMaker = std::function<ir::Stmt(const ir::StoreNode* store, const ir::Expr& index)>;
ir::Stmt rebuild_fill(const ir::Stmt& s, const ir::Expr& index, const StoreMaker& make);

}  // namespace tunectl::lower
