#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace pfmab::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the real build/pfmab with `args`, capturing stdout and stderr.
inline CliResult run_cli(const std::vector<std::string>& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto tag = std::to_string(::getpid()) + "-" + std::to_string(std::rand());
  const auto out_path = dir / ("pfmab-cli-out-" + tag);
  const auto err_path = dir / ("pfmab-cli-err-" + tag);

  std::vector<std::string> argv_storage{PFMAB_BINARY};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv_storage[0]);
  int status = 0;
  waitpid(pid, &status, 0);

  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(p);
    return text;
  };
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  return result;
}

// Path of one of the paper's instances under ../shared/data.
inline std::string shared_data(const std::string& name) {
  return std::string(PFMAB_SHARED_DATA) + "/" + name;
}

}  // namespace pfmab::testing
