// State::to_string: an Ansor-like listing of the loop structure. Placeholders
// first, then every root stage's loop nest in stage order with the stages
// attached to a loop printed inside it, then the inlined stages.
#include <sstream>

#include "schedule/state.h"

namespace tunectl::schedule {

namespace {

class Printer {
 public:
  explicit Printer(const State& s) : s_(s) {}

  std::string print() {
    std::string names;
    for (const auto& st : s_.stages)
      if (st.op->is_placeholder()) names += (names.empty() ? "" : ", ") + st.op->name;
    if (!names.empty()) os_ << "Placeholder: " << names << "\n";
    for (int i = 0; i < static_cast<int>(s_.stages.size()); ++i) {
      const Stage& st = s_.stages[i];
      if (!st.op->is_placeholder() && st.attach.kind == AttachKind::Root) print_stage(i, 0);
    }
    for (const auto& st : s_.stages)
      if (st.attach.kind == AttachKind::Inline) os_ << st.op->name << " = inline\n";
    return os_.str();
  }

 private:
  void indent(int depth) { os_ << std::string(2 * depth, ' '); }

  void print_attached(int stage, int iter_id, int depth) {
    for (int j = 0; j < static_cast<int>(s_.stages.size()); ++j) {
      const Attach& a = s_.stages[j].attach;
      if (a.kind == AttachKind::Iter && a.target_stage == stage && a.target_iter == iter_id) print_stage(j, depth);
    }
  }

  void print_stage(int i, int depth) {
    const Stage& st = s_.stages[i];
    const auto scope = st.op->buffer->scope;
    if (st.auto_unroll_max_step > 0) {
      indent(depth);
      os_ << st.op->name << " auto_unroll: " << st.auto_unroll_max_step << "\n";
    }
    if (st.double_buffer) {
      indent(depth);
      os_ << st.op->name << " double_buffer\n";
    }
    for (int id : st.leaves) {
      const Iterator& it = st.iters[id];
      indent(depth);
      os_ << (it.annotation == IterAnnotation::None ? "for" : to_string(it.annotation)) << " " << it.name << " (0,"
          << it.extent << ")\n";
      ++depth;
      print_attached(i, id, depth);
    }
    indent(depth);
    os_ << st.op->name;
    if (scope != ir::MemScope::Global) os_ << " [" << ir::to_string(scope) << "]";
    if (st.prepacked) os_ << " [prepacked]";
    if (!st.storage_order.empty()) {
      os_ << " [stored in axis order";
      for (int a : st.storage_order) os_ << " " << a;
      os_ << "]";
    }
    if (const auto* red = st.op->reduce())
      os_ << " = " << ir::to_string(red->combiner) << "(...)\n";
    else
      os_ << " = ...\n";
  }

  const State& s_;
  std::ostringstream os_;
};

}  // namespace

std::string State::to_string() const { return Printer(*this).print(); }

}  // namespace tunectl::schedule
