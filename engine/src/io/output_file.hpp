#pragma once

#include <filesystem>
#include <span>
#include <utility>

#include "pfmab/io/option_names.hpp"

namespace pfmab::io {

// Where an output goes, once checked (check_output).
struct OutputTarget {
  std::filesystem::path shown;  // as the user gave it: what messages name
  std::filesystem::path file;   // what is written (a symbolic link's target)
  bool exists = false;          // a regular file is there: continued or replaced
  OptionNames names;            // how messages name the options
};

// Checks that `given` may receive the output of a command whose inputs are
// `inputs`, before anything is written. It may name nothing yet, in an
// existing directory, or a regular file (which the caller continues or
// replaces). A symbolic link is followed: its target must be one of these,
// and a dangling link is refused (pfmab creates no file through a link).
// Never a directory, device, FIFO or socket, and never one of `inputs`,
// compared as files (device and inode: another name or a hard link of an
// input is still that input). Throws UserError naming `given` and why, and
// the options as `names` does.
OutputTarget check_output(const std::filesystem::path& given,
                          std::span<const std::filesystem::path> inputs,
                          const OptionNames& names = {});

// A writer's claim on an output within this process, held while this object
// lives. OutputLock keeps other processes out, but two writers of one process
// (two threads of a Python program) would share the name of the file being
// built (NewOutput's, named for the process) and one would read the file the
// other writes as a foreign output; the second claim is refused instead,
// before the file is read or touched.
class OutputClaim {
 public:
  // Throws UserError if a writer of this process holds `target`'s file.
  explicit OutputClaim(const OutputTarget& target);
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;
  ~OutputClaim();

 private:
  std::filesystem::path file_;  // absolute, its folders' links resolved
};

// An exclusive lock on an output file, held while this object lives. An OFD
// fcntl lock: HDF5's own flock-based locking, which readers use, is
// independent of it, so h5py can read a file while a run holds this.
class OutputLock {
 public:
  OutputLock() = default;
  // Throws UserError if another process holds it, naming the output option
  // as `names` does.
  explicit OutputLock(const std::filesystem::path& path, const OptionNames& names = {});
  OutputLock(OutputLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

 private:
  int fd_ = -1;
};

// A new output being built: a locked file beside the target, named for this
// process (".NAME.pfmab-new-HOST-PID"), so that processes building the same
// output never touch each other's, and moved into place only when complete
// (commit). Otherwise it is removed, so a failure leaves nothing behind; the
// ones of processes of this host that no longer run (killed while building)
// are removed when the next one for the same output is made.
class NewOutput {
 public:
  // Throws SystemError naming target.shown and the cause if the file cannot
  // be created, UserError if target.exists and another process writes it.
  explicit NewOutput(OutputTarget target);
  ~NewOutput();  // removes the file unless it was committed
  NewOutput(const NewOutput&) = delete;
  NewOutput& operator=(const NewOutput&) = delete;

  const OutputTarget& target() const { return target_; }
  const std::filesystem::path& path() const { return path_; }

  // Makes the file a copy of `source` (a merge starts from its first
  // shard). Throws SystemError naming the target and the cause.
  void copy_from(const std::filesystem::path& source);

  // Moves the file to the target: over the regular file there, which this
  // object has kept locked so that nobody writes it meanwhile; or as a new
  // name, never over a file another process created meanwhile (UserError).
  // Returns the lock of the new output: it follows the file.
  OutputLock commit();

 private:
  OutputTarget target_;
  OutputLock replaced_;  // of the file it replaces, if one is there
  std::filesystem::path path_;
  OutputLock lock_;
  bool committed_ = false;
};

}  // namespace pfmab::io
