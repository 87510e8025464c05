#include "lower/split_stages.h"

#include <algorithm>

#include "ir/error.h"
#include "ir/functor.h"

namespace tunectl::lower {

namespace {

// The buffers a statement stores to, in the order of their first store.
class StoredBuffers : public ir::IRVisitor {
 public:
  std::vector<ir::Buffer> buffers;

 protected:
  void visit_Store(const ir::StoreNode* op) override {
    if (std::none_of(buffers.begin(), buffers.end(), [&](const ir::Buffer& b) { return b.same_as(op->buffer); }))
      buffers.push_back(op->buffer);
    ir::IRVisitor::visit_Store(op);
  }
};

// The top level of body: allocations peeled off into `shared`, sequences
// flattened into `stmts`.
void flatten_top_level(const ir::Stmt& body, std::vector<ir::Buffer>& shared, std::vector<ir::Stmt>& stmts) {
  if (auto* a = body.as<ir::AllocateNode>()) {
    shared.push_back(a->buffer);
    flatten_top_level(a->body, shared, stmts);
  } else if (auto* seq = body.as<ir::SeqNode>()) {
    for (const ir::Stmt& s : seq->stmts) flatten_top_level(s, shared, stmts);
  } else if (body) {
    stmts.push_back(body);
  }
}

}  // namespace

SplitKernel split_root_stages(const LoweredFunc& func) {
  user_check(func.lowered_for == target::TargetKind::Llvm, func.name,
             ": only a CPU kernel is split into its stages (a GPU kernel's are one launch)");
  SplitKernel out;
  std::vector<ir::Stmt> stmts;
  flatten_top_level(func.body, out.shared, stmts);
  std::vector<ir::Buffer> args = func.args;
  args.insert(args.end(), out.shared.begin(), out.shared.end());
  for (size_t i = 0; i < stmts.size(); ++i) {
    StoredBuffers stored;
    stored.visit(stmts[i]);
    std::string label;
    for (const ir::Buffer& b : stored.buffers) {
      const bool outlives = std::any_of(args.begin(), args.end(), [&](const ir::Buffer& a) { return a.same_as(b); });
      if (outlives) label += (label.empty() ? "" : ", ") + b->name;
    }
    LoweredFunc part;
    part.name = func.name + "_stage" + std::to_string(i);
    part.args = args;
    part.body = stmts[i];
    part.lowered_for = func.lowered_for;
    out.parts.push_back({label.empty() ? "(writes no lasting buffer)" : label, std::move(part)});
  }
  return out;
}

}  // namespace tunectl::lower
