// `tunectl ops [--markdown]`: the ONNX operators tunectl reads, the opsets it
// reads each in, and how the partitioner treats it. The README's operator
// table is this command's --markdown output (scripts/update-ops-table.sh).
#include <cstdio>
#include <memory>
#include <string>

#include "cmd/subcommands.h"
#include "graph/import.h"
#include "graph/operator_table.h"

namespace tunectl::cmd {

namespace {

const char* role(graph::OpClass cls) {
  switch (cls) {
    case graph::OpClass::Anchor: return "anchor of a task (tuned)";
    case graph::OpClass::Elementwise: return "elementwise (fused into a task)";
    case graph::OpClass::Injective: return "injective (fused into a task)";
    case graph::OpClass::Shape: return "shape computation (folded when compiling)";
    case graph::OpClass::Container: return "sequence or optional (resolved when compiling)";
  }
  return "";
}

// How the partitioner treats op: its class's role, and for a Concat that it
// may cost nothing (graph/concat_views.h).
std::string role_of(const std::string& op, graph::OpClass cls) {
  if (op == "Concat") return std::string(role(cls)) + ", or computed in place (a channel concat at batch 1)";
  return role(cls);
}

void print_ops(bool markdown) {
  const auto ops = graph::supported_operators();
  if (markdown) std::printf("| operator | opsets | role |\n| --- | --- | --- |\n");
  for (const auto& o : ops) {
    const std::string r = role_of(o.op, o.cls);
    if (markdown) {
      std::printf("| %s | %d-%d | %s |\n", o.op.c_str(), o.first_opset, o.last_opset, r.c_str());
    } else {
      std::printf("%-26s %2d-%-2d  %s\n", o.op.c_str(), o.first_opset, o.last_opset, r.c_str());
    }
  }
  std::printf("%s%zu operators; models of opsets below %d are upgraded to opset %d first\n", markdown ? "\n" : "",
              ops.size(), graph::kMinOpset, graph::kMinOpset);
}

}  // namespace

void register_ops(CLI::App& app) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("ops", "List the ONNX operators tunectl reads, with their opsets");
  sub->add_flag("--markdown", *markdown, "print a Markdown table (the README's)");
  sub->callback([markdown] { print_ops(*markdown); });
}

}  // namespace tunectl::cmd
