#include "io/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <signal.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/text_file.hpp"

namespace pfmab::io {
namespace fs = std::filesystem;
namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  return name;
}

// A file descriptor, closed when it goes.
struct Descriptor {
  explicit Descriptor(int opened) : fd(opened) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  const int fd;
};

// The directory a path's file is in ("." for a bare name).
fs::path directory_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// Removes the files of `prefix` + PID in `dir` whose process has ended: it
// was killed while building an output, and nobody else uses its name.
void remove_abandoned(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    pid_t pid = 0;
    const char* end = name.data() + name.size();
    const auto [at, error] = std::from_chars(name.data() + prefix.size(), end, pid);
    if (error != std::errc{} || at != end || pid <= 0) continue;
    if (::kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
  }
}

}  // namespace

OutputTarget check_output(const fs::path& given, std::span<const fs::path> inputs) {
  const auto refuse = [&](const std::string& why) {
    return UserError(fmt::format("output '{}' {}; choose another -o", given.string(), why));
  };
  std::error_code ec;
  const bool link = fs::is_symlink(fs::symlink_status(given, ec));
  const auto status = fs::status(given, ec);  // of the link's target
  if (ec && status.type() != fs::file_type::not_found) {
    throw refuse(fmt::format("cannot be examined ({})", ec.message()));
  }
  const auto linked =
      link ? fmt::format("is a symbolic link to '{}', which ", fs::read_symlink(given, ec).string())
           : std::string("");
  OutputTarget target{given, given, false};
  switch (status.type()) {
    case fs::file_type::not_found: {
      if (link) throw refuse(linked + "does not exist: pfmab creates no file through a link");
      const auto dir = directory_of(given);
      if (!fs::is_directory(dir, ec)) {
        throw UserError(fmt::format("cannot create output '{}': '{}' is not a directory{}",
                                    given.string(), dir.string(),
                                    fs::exists(dir, ec) ? "" : " (it does not exist)"));
      }
      return target;
    }
    case fs::file_type::regular:
      break;
    default:
      throw refuse(fmt::format("{}{}: pfmab replaces only regular files",
                               link ? linked + "is " : "is ", kind_of(status.type())));
  }
  target.exists = true;
  if (link) target.file = fs::canonical(given);
  for (const auto& input : inputs) {
    if (fs::equivalent(target.file, input, ec)) {
      throw refuse(
          fmt::format("is also an input of this command ('{}' is the same file)", input.string()));
    }
  }
  return target;
}

OutputLock::OutputLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)) {
  if (fd_ < 0) {
    throw UserError(fmt::format("cannot open output '{}' for writing ({})", path.string(),
                                std::strerror(errno)));
  }
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd_, F_OFD_SETLK, &lock) != 0) {
    ::close(std::exchange(fd_, -1));
    throw UserError(fmt::format(
        "output '{}' is being written by another pfmab process (wait for it, or choose another -o)",
        path.string()));
  }
}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

NewOutput::NewOutput(OutputTarget target) : target_(std::move(target)) {
  if (target_.exists) replaced_ = OutputLock(target_.file);
  const auto prefix =
      fmt::format(".{}.pfmab-new-{}-", target_.file.filename().string(), host_name());
  const auto dir = directory_of(target_.file);
  remove_abandoned(dir, prefix);
  path_ = dir / fmt::format("{}{}", prefix, ::getpid());
  // O_EXCL: the name is this process's alone, so one that is there was left
  // by an earlier process of the same number, killed while building.
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST && ::unlink(path_.c_str()) == 0) {
    fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    throw SystemError(
        fmt::format("cannot create output '{}': {}", target_.shown.string(), std::strerror(errno)));
  }
  ::close(fd);
  try {
    lock_ = OutputLock(path_);
  } catch (...) {
    ::unlink(path_.c_str());
    throw;
  }
}

NewOutput::~NewOutput() {
  if (!committed_) ::unlink(path_.c_str());
}

void NewOutput::copy_from(const fs::path& source) {
  // read and write, not std::filesystem::copy_file: after a partial
  // sendfile (a file-size limit) it reports any failure as an I/O error
  const auto fail = [&] {
    return SystemError(
        fmt::format("cannot create output '{}': {}", target_.shown.string(), std::strerror(errno)));
  };
  const Descriptor in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) throw fail();
  const Descriptor out(::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (out.fd < 0) throw fail();
  std::vector<char> buffer(1 << 20);
  for (ssize_t got; (got = ::read(in.fd, buffer.data(), buffer.size())) != 0;) {
    if (got < 0) throw fail();
    for (ssize_t put = 0; put < got;) {
      const auto n = ::write(out.fd, buffer.data() + put, static_cast<std::size_t>(got - put));
      if (n < 0) throw fail();
      put += n;
    }
  }
}

OutputLock NewOutput::commit() {
  const auto& to = target_.file;
  if (target_.exists) {
    if (::rename(path_.c_str(), to.c_str()) != 0) {
      throw SystemError(fmt::format("cannot create output '{}': {}", target_.shown.string(),
                                    std::strerror(errno)));
    }
  } else {
    // link, not rename: a new output never replaces one that another
    // process created meanwhile
    if (::link(path_.c_str(), to.c_str()) != 0) {
      if (errno == EEXIST) {
        throw UserError(fmt::format(
            "output '{}' was created by another process while this one was building it; it is "
            "left as it is",
            target_.shown.string()));
      }
      throw SystemError(fmt::format("cannot create output '{}': {}", target_.shown.string(),
                                    std::strerror(errno)));
    }
    ::unlink(path_.c_str());
  }
  committed_ = true;
  return std::move(lock_);
}

}  // namespace pfmab::io
