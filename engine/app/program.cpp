// pfmab, the program: the command line parsed into one of its commands
// (cli.hpp), run in the world this process was started in (alone, or as a
// rank of an MPI job), its error printed once for the job.
#include "program.hpp"

#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "pfmab/run/world.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/version.hpp"

#include "cli.hpp"
#include "stop_requests.hpp"

namespace pfmab::cli {
namespace {

// Prints the error being handled and returns the exit status it calls for:
// 2 for the user's mistake, 1 for the system's failure or pfmab's own.
int failed() {
  try {
    throw;
  } catch (const run::ReportedElsewhere& e) {
    return e.status;
  } catch (const UserError& e) {
    std::cerr << "pfmab: error: " << excerpt(e.what(), message_chars) << '\n';
    return 2;
  } catch (const SystemError& e) {
    std::cerr << "pfmab: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "pfmab: internal error: " << excerpt(e.what(), message_chars) << '\n';
    return 1;
  }
}

[[noreturn]] void refuse_on_ranks(std::string_view name) {
  throw UserError(fmt::format(
      "algorithm '{}' is a Python class, which does not run on MPI ranks: run it as a job array "
      "of shards (docs/cluster.md, \"A Python algorithm\")",
      excerpt(name)));
}

}  // namespace

int run_program(int argc, char** argv, algorithms::Resolver python_classes) {
  catch_stop_requests();
  // A file-size limit (ulimit -f) would otherwise kill the program with
  // SIGXFSZ; ignored, the write fails with EFBIG and is reported like a full
  // disk (docs/outputs.md).
  std::signal(SIGXFSZ, SIG_IGN);
  std::unique_ptr<run::World> world;
  try {
    world = run::join_world(argc, argv);
  } catch (...) {
    return failed();
  }
  // Under an MPI launcher, even as one rank: an interpreter started in a
  // rank's place would find MPI's environment and fail to join it.
  const bool under_mpi = dynamic_cast<const run::OneRank*>(world.get()) == nullptr;
  algorithms::set_resolver(under_mpi ? &refuse_on_ranks : python_classes);

  CLI::App app{"pfmab: Monte Carlo engine for personalized federated multi-armed bandits"};
  app.set_version_flag("--version", fmt::format("pfmab {} ({})", PFMAB_VERSION, git_commit()));
  // At most one; an unknown word is then reported by name as unexpected.
  app.require_subcommand(0, 1);
  Commands commands(app);

  // Every rank parses the same command line; only the leader speaks.
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return world->leader() ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return world->leader() ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return world->leader() ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (world->leader()) {
      std::cerr << "pfmab: error: " << excerpt(e.what(), message_chars) << " (see pfmab --help)\n";
    }
    return 2;
  }
  try {
    return commands.execute(*world);
  } catch (...) {
    return failed();
  }
}

}  // namespace pfmab::cli
