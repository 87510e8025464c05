// The subcommands of tunectl. Each registers itself on the CLI11 app and
// sets the callback that runs it; errors leave as UserError/InternalError and
// main() turns them into messages and exit codes.
#pragma once

#include <CLI/CLI.hpp>

namespace tunectl::cmd {

void register_compile(CLI::App& app);
void register_compile_op(CLI::App& app);
void register_bench(CLI::App& app);
void register_run(CLI::App& app);
void register_tasks(CLI::App& app);
void register_tune(CLI::App& app);
void register_replay(CLI::App& app);
void register_ops(CLI::App& app);
void register_log(CLI::App& app);
void register_report(CLI::App& app);

}  // namespace tunectl::cmd
