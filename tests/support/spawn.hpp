#pragma once

// A program started in the background (posix_spawn) that a test can signal,
// poll and wait for; run_cli is its synchronous use.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <signal.h>

namespace pfmab::testing {

// What a finished program printed, and how it ended.
struct CliResult {
  int exit_code = -1;  // or 128 + the signal that ended it
  std::string out;
  std::string err;
};

class Spawned {
 public:
  // Starts `program` with `args` (argv[0] is `program`), stdin from
  // /dev/null, stdout and stderr into temporary files.
  Spawned(const std::string& program, const std::vector<std::string>& args) {
    static std::atomic<unsigned> counter{0};
    const auto dir = std::filesystem::temp_directory_path();
    const auto tag = std::to_string(::getpid()) + "-" + std::to_string(counter++);
    out_path_ = dir / ("pfmab-spawn-out-" + tag);
    err_path_ = dir / ("pfmab-spawn-err-" + tag);

    std::vector<std::string> storage{program};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // The child starts with default dispositions and nothing blocked, so
    // that SIGINT reaches it whatever the test runner did with its own.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int rc = posix_spawn(&pid_, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      cleanup_files();
      throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc));
    }
    started_ = std::chrono::steady_clock::now();
  }

  Spawned(const Spawned&) = delete;
  Spawned& operator=(const Spawned&) = delete;

  // A process still running is killed (SIGKILL) and reaped.
  ~Spawned() {
    if (!status_) {
      ::kill(pid_, SIGKILL);
      reap(0);
    }
    cleanup_files();
  }

  pid_t pid() const { return pid_; }

  std::chrono::steady_clock::duration elapsed() const {
    return std::chrono::steady_clock::now() - started_;
  }

  // The processor time the process has used so far (/proc/PID/stat's utime
  // and stime), and once it has ended, in all (user + system, as wait4
  // reported it): a test waits for it to be well into some work, or bounds
  // the work a stop took, whatever the machine's load, rather than wall time.
  double cpu_seconds() const {
    if (status_) {
      return static_cast<double>(usage_.ru_utime.tv_sec + usage_.ru_stime.tv_sec) +
             static_cast<double>(usage_.ru_utime.tv_usec + usage_.ru_stime.tv_usec) * 1e-6;
    }
    std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
    std::string text{std::istreambuf_iterator<char>(stat), {}};
    const auto after_name = text.rfind(')');  // the name may hold spaces
    if (after_name == std::string::npos) return 0.0;
    std::istringstream fields(text.substr(after_name + 2));
    std::string field;
    unsigned long long ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {  // utime is field 14, stime 15
      if (i >= 14) ticks += std::stoull(field);
    }
    return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }

  // True until the process has ended (it is reaped as soon as it has).
  bool running() {
    if (!status_) reap(WNOHANG);
    return !status_;
  }

  // Sends `sig` unless the process has already been reaped.
  void signal(int sig) {
    if (!status_) ::kill(pid_, sig);
  }

  // Stops the process (SIGSTOP) and waits until every thread of it has
  // stopped: what a test then reads of it (its files, its CPU time) stays
  // as read until resume(), and a signal sent meanwhile lands exactly there.
  // False if it has ended instead (it is then reaped).
  bool stop() {
    if (status_) return false;
    ::kill(pid_, SIGSTOP);
    while (!status_) {
      int status = 0;
      rusage usage{};
      const pid_t got = ::wait4(pid_, &status, WUNTRACED, &usage);
      if (got < 0 && errno == EINTR) continue;
      if (got == pid_ && WIFSTOPPED(status)) return true;
      if (got == pid_) {
        status_ = status;
        usage_ = usage;
      }
      if (got < 0) status_ = 0;
    }
    return false;
  }

  // Lets a stopped process go on.
  void resume() {
    if (!status_) ::kill(pid_, SIGCONT);
  }

  // Waits for the end; the exit code, or 128 + the signal that ended it.
  CliResult wait() {
    while (!status_) reap(0);
    CliResult result;
    result.exit_code = exit_code();
    result.out = slurp(out_path_);
    result.err = slurp(err_path_);
    return result;
  }

  // Valid once the process has ended.
  bool exited() const { return status_ && WIFEXITED(*status_); }
  bool killed_by(int sig) const {
    return status_ && WIFSIGNALED(*status_) && WTERMSIG(*status_) == sig;
  }
  int exit_code() const {
    return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
  }

 private:
  void reap(int options) {
    int status = 0;
    rusage usage{};
    pid_t got;
    do {
      got = ::wait4(pid_, &status, options, &usage);
    } while (got < 0 && errno == EINTR);
    if (got == pid_) {
      status_ = status;
      usage_ = usage;
    }
    if (got < 0) status_ = 0;  // not our child any more: nothing to wait for
  }

  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  void cleanup_files() {
    std::error_code ec;
    std::filesystem::remove(out_path_, ec);
    std::filesystem::remove(err_path_, ec);
  }

  pid_t pid_ = -1;
  std::optional<int> status_;
  rusage usage_{};  // of the ended process
  std::chrono::steady_clock::time_point started_;
  std::filesystem::path out_path_, err_path_;
};

// The real build/pfmab with `args`, in the background.
inline std::unique_ptr<Spawned> spawn_cli(const std::vector<std::string>& args) {
  return std::make_unique<Spawned>(PFMAB_BINARY, args);
}

// Runs `program` to completion (like run_cli, for any program).
inline CliResult run_program(const std::string& program, const std::vector<std::string>& args) {
  Spawned p(program, args);
  return p.wait();
}

}  // namespace pfmab::testing
