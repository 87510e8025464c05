// tunectl: the command line. Parses flags with CLI11, dispatches to one
// subcommand, and is the single place where errors become exit codes:
// 0 ok, 1 bad command line, 2 user error, 70 internal error (a bug), 71 an
// operating-system call failed (fork, a read-only folder, a full disk).
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "cmd/subcommands.h"
#include "ir/error.h"

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f), a write then fails with EFBIG, which
  // names the file, instead of SIGXFSZ ending the process without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"tunectl — an auto-tuner for deep-learning models (ONNX -> tuned CPU/GPU kernels)", "tunectl"};
  app.set_version_flag("--version", "tunectl " TUNECTL_VERSION);
  app.require_subcommand(1);
  // Diagnostics go through spdlog to stderr as "warning: ...", "debug: ...";
  // -v and -q are accepted after any subcommand (fallthrough).
  spdlog::set_default_logger(spdlog::stderr_logger_st("tunectl"));
  spdlog::set_pattern("%l: %v");
  app.fallthrough();
  app.add_flag_callback("-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); },
                        "also log debug details (graph passes, lowering passes and their times)");
  app.add_flag_callback("-q,--quiet", [] { spdlog::set_level(spdlog::level::err); },
                        "print no progress, notes or warnings, only results and errors");
  tunectl::cmd::register_compile(app);
  tunectl::cmd::register_compile_op(app);
  tunectl::cmd::register_bench(app);
  tunectl::cmd::register_run(app);
  tunectl::cmd::register_tasks(app);
  tunectl::cmd::register_tune(app);
  tunectl::cmd::register_replay(app);
  tunectl::cmd::register_ops(app);
  tunectl::cmd::register_log(app);
  tunectl::cmd::register_report(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help and --version arrive here too
  } catch (const tunectl::UserError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const tunectl::InternalError& e) {
    std::fprintf(stderr, "%s\n(this is a bug in tunectl; please report it)\n", e.what());
    return 70;
  } catch (const tunectl::SystemError& e) {
    std::fprintf(stderr, "error: %s\n(an operating-system call failed)\n", e.what());
    return 71;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
