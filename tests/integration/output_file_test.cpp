// Where an output may go and what a failure leaves, through the real program
// (docs/outputs.md): only a regular file is replaced (a symbolic link is
// followed to one), never a device, FIFO, socket or directory, never an
// input of the same command; a full disk (a file-size limit, or a small
// tmpfs) while an output is created leaves nothing at its name and no
// temporary file, and later leaves a file the same command continues to the
// uninterrupted digest; a truncated, corrupt, foreign or self-contradicting
// file given to summary, a resumed run or merge is refused by name; merges
// racing into one file never touch each other's temporary files. Every
// refusal and failure is one line on stderr, never HDF5's error stack.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "io/hdf5.hpp"
#include "run_cli.hpp"
#include "spawn.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;
namespace h5 = io::h5;

// ---------------------------------------------------------------------------
// Helpers

// A small experiment as flags (a run takes milliseconds), reading `means`.
std::vector<std::string> small(const std::string& means = shared_data("synthetic_4x9.csv")) {
  return {"--means",        means, "--alpha", "0,0.5", "--horizon", "1e4",
          "--replications", "20",  "--seed",  "1",     "--quiet",   "--json"};
}

// One whose output grows from about 1 MB when created to about 5 MB (its
// rows, compressed, take 5% of their 91 MB).
std::vector<std::string> large() {
  return {"--means",        shared_data("synthetic_4x9.csv"),
          "--alpha",        "0,0.5",
          "--horizon",      "1e4",
          "--replications", "20000",
          "--seed",         "1",
          "--quiet",        "--json"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// What a path is, links not followed: equal before and after a command
// exactly when it changed, replaced or moved nothing there.
struct Entry {
  unsigned mode = 0;  // type and permissions
  ino_t inode = 0;
  dev_t device = 0;     // a device's number
  std::string content;  // a regular file's bytes, a link's target
  bool operator==(const Entry&) const = default;
};

Entry entry_of(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  Entry e{st.st_mode, st.st_ino, st.st_rdev, {}};
  if (S_ISREG(st.st_mode)) e.content = bytes_of(path);
  if (S_ISLNK(st.st_mode)) e.content = fs::read_symlink(path).string();
  return e;
}

// Every entry of a directory tree, by path.
std::map<std::string, Entry> listing(const fs::path& dir) {
  std::map<std::string, Entry> all;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    all[e.path().string()] = entry_of(e.path());
  }
  return all;
}

// The names of temporary outputs (".NAME.pfmab-new-HOST-PID") in `dir`.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (name.find(".pfmab-new-") != std::string::npos) found.push_back(name);
  }
  return found;
}

// A refusal or a failure: exit `status`, nothing on stdout, one line on
// stderr, "pfmab: error: " and each of `words`.
void expect_one_line(const CliResult& r, int status, const std::vector<std::string>& words) {
  EXPECT_EQ(r.exit_code, status) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("pfmab: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
  for (const auto& w : words) {
    EXPECT_NE(r.err.find(w), std::string::npos) << "no \"" << w << "\" in: " << r.err;
  }
}

// The replications an output holds, as `summary --json` reports them.
std::uint64_t replications_in(const fs::path& output) {
  const auto r = run_cli({"summary", output.string(), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  std::uint64_t total = 0;
  for (const auto& cell : report.at("cells")) total += cell.at("replications").get<std::uint64_t>();
  return total;
}

// ---------------------------------------------------------------------------
// 1. What an output may be

TEST(OutputTargets, NothingButARegularFileIsReplaced) {
  TempDir dir("targets");
  ASSERT_EQ(run_cli(run_to(small(), dir / "part-0.h5", {"--shard", "0/2"})).exit_code, 0);
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  fs::create_directory(dir / "directory");
  {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const auto socket_path = (dir / "socket").string();
    ASSERT_LT(socket_path.size(), sizeof address.sun_path);
    std::strcpy(address.sun_path, socket_path.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
  }
  fs::create_symlink("/dev/null", dir / "to-null");
  fs::create_symlink("fifo", dir / "to-fifo");
  fs::create_symlink("missing", dir / "dangling");
  const auto before = listing(dir.dir());
  const auto null_before = entry_of("/dev/null");

  const std::vector<std::pair<fs::path, std::string>> cases{
      {"/dev/null", "is a character device: pfmab replaces only regular files"},
      {dir / "fifo", "is a FIFO (named pipe): pfmab replaces only regular files"},
      {dir / "directory", "is a directory: pfmab replaces only regular files"},
      {dir / "socket", "is a socket: pfmab replaces only regular files"},
      {dir / "to-null", "is a symbolic link to '/dev/null', which is a character device"},
      {dir / "to-fifo", "is a symbolic link to 'fifo', which is a FIFO (named pipe)"},
      {dir / "dangling",
       "is a symbolic link to 'missing', which does not exist: pfmab creates no file through a "
       "link"},
  };
  for (const auto& [output, why] : cases) {
    const std::vector<std::string> words{"output '" + output.string() + "' " + why,
                                         "choose another -o"};
    SCOPED_TRACE(output.string());
    expect_one_line(run_cli(run_to(small(), output, {"--overwrite"})), 2, words);
    expect_one_line(run_cli({"merge", (dir / "part-0.h5").string(), "-o", output.string(),
                             "--partial", "--overwrite"}),
                    2, words);
    EXPECT_EQ(listing(dir.dir()), before);
    EXPECT_EQ(entry_of("/dev/null"), null_before);
  }
}

TEST(OutputTargets, ASymbolicLinkIsFollowedToTheRegularFileItNames) {
  TempDir dir("symlink");
  dir.write("target.h5", "not an output yet\n");
  fs::create_symlink("target.h5", dir / "link.h5");

  const auto made = run_cli(run_to(small(), dir / "link.h5", {"--overwrite"}));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // the link is as it was; its target is the output
  EXPECT_TRUE(fs::is_symlink(dir / "link.h5"));
  EXPECT_EQ(fs::read_symlink(dir / "link.h5"), "target.h5");
  const auto report = run_cli({"summary", (dir / "target.h5").string(), "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(printed_digest(report), printed_digest(made));
  // and the same command through the link continues it
  const auto again = run_cli(run_to(small(), dir / "link.h5"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(printed_digest(again), printed_digest(made));
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.dir())) names.insert(e.path().filename());
  EXPECT_EQ(names, (std::set<std::string>{"link.h5", "target.h5"}));
}

TEST(OutputTargets, AnInputOfTheSameCommandIsNeverItsOutput) {
  TempDir dir("inputs");
  fs::copy_file(shared_data("synthetic_4x9.csv"), dir / "in.csv");
  fs::create_hard_link(dir / "in.csv", dir / "hard.csv");
  fs::create_symlink("in.csv", dir / "link.csv");
  fs::create_directory(dir / "sub");
  dir.write("exp.toml",
            "seed = 1\nalpha = [0.0, 0.5]\nhorizon = 1e4\nreplications = 20\n"
            "[instance]\nmeans = \"in.csv\"\n");
  const auto before = listing(dir.dir());
  const auto csv = (dir / "in.csv").string();
  const auto exp = (dir / "exp.toml").string();

  const std::vector<std::pair<std::vector<std::string>, fs::path>> cases{
      {small(csv), dir / "in.csv"},
      {small(csv), dir / "hard.csv"},       // another name of the same file
      {small(csv), dir / "link.csv"},       // a link to it
      {small(csv), dir / "sub/../in.csv"},  // another spelling
      {{exp, "--quiet"}, dir / "exp.toml"},
      {{exp, "--quiet"}, dir / "in.csv"},  // named in the experiment file, relative to it
  };
  for (const auto& [experiment, output] : cases) {
    SCOPED_TRACE(output.string());
    expect_one_line(run_cli(run_to(experiment, output, {"--overwrite"})), 2,
                    {"output '" + output.string() + "' is also an input of this command",
                     "is the same file); choose another -o"});
    EXPECT_EQ(listing(dir.dir()), before);
  }
}

TEST(OutputTargets, AnEmptyNameOrAMissingDirectoryIsRefused) {
  TempDir dir("names");
  ASSERT_EQ(run_cli(run_to(small(), dir / "part-0.h5", {"--shard", "0/2"})).exit_code, 0);
  const auto before = listing(dir.dir());

  // -o "" meant no output at all, silently
  expect_one_line(run_cli(run_to(small(), "")), 2, {"--output: the file name is empty"});
  expect_one_line(run_cli({"merge", (dir / "part-0.h5").string(), "-o", "", "--partial"}), 2,
                  {"--output: the file name is empty"});
  const auto missing = dir / "missing" / "out.h5";
  expect_one_line(run_cli(run_to(small(), missing)), 2,
                  {"cannot create output '" + missing.string() + "': '" +
                   (dir / "missing").string() + "' is not a directory (it does not exist)"});
  EXPECT_EQ(listing(dir.dir()), before);
}

// ---------------------------------------------------------------------------
// 2. A full disk

// The uninterrupted run of large() into `dir`/reference.h5: its digest.
std::string large_reference(const TempDir& dir) {
  const auto r = run_cli(run_to(large(), dir / "reference.h5"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return printed_digest(r);
}

TEST(FullDisk, AFileSizeLimitWhileAnOutputIsCreatedLeavesNothing) {
  TempDir parts("parts");
  for (const char* shard : {"0/2", "1/2"}) {
    const auto name = std::string("part-") + shard[0] + ".h5";
    ASSERT_EQ(run_cli(run_to(large(), parts / name, {"--shard", shard})).exit_code, 0);
  }
  const auto parts_before = listing(parts.dir());
  TempDir dir("created");
  const auto output = dir / "out.h5";

  // 64 KiB: the new output (about 1 MB) cannot be written
  expect_one_line(run_cli_with_file_limit(64, run_to(large(), output)), 1,
                  {"cannot create output '" + output.string() + "': File too large"});
  EXPECT_TRUE(fs::is_empty(dir.dir())) << "left behind: " << temporaries(dir.dir()).size();
  expect_one_line(
      run_cli_with_file_limit(64, {"merge", (parts / "part-0.h5").string(),
                                   (parts / "part-1.h5").string(), "-o", output.string()}),
      1, {"cannot create output '" + output.string() + "': File too large"});
  EXPECT_TRUE(fs::is_empty(dir.dir()));
  EXPECT_EQ(listing(parts.dir()), parts_before);
}

TEST(FullDisk, AFileSizeLimitMidRunLeavesAFileTheSameCommandContinues) {
  TempDir dir("midrun");
  const auto reference = large_reference(dir);
  // past the first cell, which is flushed when complete: not the second
  const auto limit_kib = fs::file_size(dir / "reference.h5") * 3 / 4 / 1024;
  const auto output = dir / "out.h5";

  expect_one_line(run_cli_with_file_limit(limit_kib, run_to(large(), output)), 1,
                  {"cannot write output '" + output.string() + "': File too large"});
  EXPECT_TRUE(temporaries(dir.dir()).empty());
  // what was flushed before is a valid output, and the same command goes on
  const auto kept = replications_in(output);
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, 40000u);
  const auto continued = run_cli(run_to(large(), output));
  ASSERT_EQ(continued.exit_code, 0) << continued.err;
  EXPECT_EQ(printed_digest(continued), reference);
}

TEST(FullDisk, AMergeThatMeetsAFileSizeLimitLeavesNothing) {
  TempDir dir("merge");
  const auto reference = large_reference(dir);
  std::vector<std::string> merge{"merge"};
  for (const char* shard : {"0/2", "1/2"}) {
    const auto part = dir / (std::string("part-") + shard[0] + ".h5");
    ASSERT_EQ(run_cli(run_to(large(), part, {"--shard", shard})).exit_code, 0);
    merge.push_back(part.string());
  }
  const auto output = dir / "out.h5";
  merge.insert(merge.end(), {"-o", output.string(), "--json"});
  const auto before = listing(dir.dir());

  // room for the copy of the first shard, not for the second's rows
  const auto limit_kib = fs::file_size(dir / "part-0.h5") / 1024 + 1024;
  expect_one_line(run_cli_with_file_limit(limit_kib, merge), 1,
                  {"cannot write output '" + output.string() + "': File too large"});
  EXPECT_EQ(listing(dir.dir()), before);
  const auto merged = run_cli(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(printed_digest(merged), reference);
}

// A tmpfs of `size` mounted at `at` while it lives: a file system that
// really fills (ENOSPC). Needs root, as CI has.
class Tmpfs {
 public:
  Tmpfs(const fs::path& at, const std::string& size) : at_(at) {
    fs::create_directories(at);
    const auto r =
        run_program("/bin/mount", {"-t", "tmpfs", "-o", "size=" + size, "pfmab-test", at.string()});
    mounted_ = r.exit_code == 0;
    EXPECT_TRUE(mounted_) << "mount: " << r.err;
  }
  ~Tmpfs() {
    if (mounted_ && run_program("/bin/umount", {at_.string()}).exit_code != 0) {
      run_program("/bin/umount", {"-l", at_.string()});  // busy: detach it anyway
    }
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  bool mounted() const { return mounted_; }

 private:
  fs::path at_;
  bool mounted_ = false;
};

TEST(FullDisk, AFullFileSystem) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root (CI runs as root)";
  TempDir dir("tmpfs");
  const auto reference = large_reference(dir);
  {
    const Tmpfs tiny(dir / "tiny", "64k");
    ASSERT_TRUE(tiny.mounted());
    const auto output = dir / "tiny" / "out.h5";
    expect_one_line(run_cli(run_to(large(), output)), 1,
                    {"cannot create output '" + output.string() + "': No space left on device"});
    EXPECT_TRUE(fs::is_empty(dir / "tiny"));
  }
  const Tmpfs most(dir / "most", std::to_string(fs::file_size(dir / "reference.h5") * 3 / 4));
  ASSERT_TRUE(most.mounted());
  const auto output = dir / "most" / "out.h5";
  expect_one_line(run_cli(run_to(large(), output)), 1,
                  {"cannot write output '" + output.string() + "': No space left on device"});
  EXPECT_TRUE(temporaries(dir / "most").empty());
  EXPECT_GT(replications_in(output), 0u);
  // continued where there is room, it gives the uninterrupted results
  fs::copy_file(output, dir / "out.h5");
  const auto continued = run_cli(run_to(large(), dir / "out.h5"));
  ASSERT_EQ(continued.exit_code, 0) << continued.err;
  EXPECT_EQ(printed_digest(continued), reference);
}

// ---------------------------------------------------------------------------
// 3. Damaged inputs: summary, a resumed run and merge refuse them by name

struct Damage {
  std::string name;
  std::function<void(const fs::path&)> apply;  // to a copy of a good output
  std::string why;                             // after "is not a readable pfmab output: "
};

void PrintTo(const Damage& d, std::ostream* os) { *os << d.name; }

// Opens an output to alter it as a crafted file would.
h5::Handle open_to_alter(const fs::path& path) {
  return h5::Handle(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
}

void overwrite_u64(const fs::path& path, const char* dataset, std::vector<std::uint64_t> values) {
  const auto file = open_to_alter(path);
  const h5::Handle set(H5Dopen2(file.get(), dataset, H5P_DEFAULT));
  h5::overwrite(set.get(), values);
}

class DamagedInputs : public ::testing::TestWithParam<Damage> {
 protected:
  // A whole run's output and the two shards of the same experiment.
  static void SetUpTestSuite() {
    temp_ = std::make_unique<TempDir>("damaged");
    ASSERT_EQ(run_cli(run_to(small(), *temp_ / "whole.h5")).exit_code, 0);
    for (const char* shard : {"0/2", "1/2"}) {
      const auto name = std::string("part-") + shard[0] + ".h5";
      ASSERT_EQ(run_cli(run_to(small(), *temp_ / name, {"--shard", shard})).exit_code, 0);
    }
  }
  static void TearDownTestSuite() { temp_.reset(); }
  static std::unique_ptr<TempDir> temp_;
};
std::unique_ptr<TempDir> DamagedInputs::temp_;

TEST_P(DamagedInputs, AreRefusedByNameAndLeftAsTheyAre) {
  const auto& damage = GetParam();
  TempDir dir("damage");
  // the damaged file in the role of each command's input
  const auto whole = dir / "whole.h5", shard = dir / "part-1.h5";
  fs::copy_file(*temp_ / "whole.h5", whole);
  fs::copy_file(*temp_ / "part-1.h5", shard);
  damage.apply(whole);
  damage.apply(shard);
  const auto before = listing(dir.dir());
  const auto refused = [&](const fs::path& file) {
    return "'" + file.string() + "' is not a readable pfmab output: " + damage.why;
  };

  SCOPED_TRACE("summary");
  expect_one_line(run_cli({"summary", whole.string()}), 2, {refused(whole)});
  SCOPED_TRACE("a resumed run");
  expect_one_line(run_cli(run_to(small(), whole)), 2,
                  {refused(whole), "(use --overwrite to replace it, or choose another -o)"});
  SCOPED_TRACE("merge");
  expect_one_line(run_cli({"merge", (*temp_ / "part-0.h5").string(), shard.string(), "-o",
                           (dir / "merged.h5").string()}),
                  2, {refused(shard)});
  EXPECT_EQ(listing(dir.dir()), before);
}

INSTANTIATE_TEST_SUITE_P(
    Damages, DamagedInputs,
    ::testing::Values(
        Damage{"truncated", [](const fs::path& p) { fs::resize_file(p, 4096); },
               "truncated file: eof = 4096"},
        Damage{"metadata_overwritten",
               [](const fs::path& p) {
                 std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
                 f.seekp(64);
                 const std::string junk(4096 - 64, '\xab');
                 f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
               },
               "incorrect metadata checksum"},
        Damage{"not_hdf5", [](const fs::path& p) { std::ofstream(p) << "plain text\n"; },
               "not an HDF5 file"},
        Damage{"another_programs_hdf5",
               [](const fs::path& p) {
                 const h5::Handle file(
                     H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
                 h5::write_dataset(file.get(), "x", std::vector<double>{1, 2, 3}, {3});
               },
               "no 'pfmab-results-9' format attribute (not written by pfmab)"},
        // a resumed run of this file ran for ever
        Damage{
            "done_above_replications",
            [](const fs::path& p) { overwrite_u64(p, "cells/0000/replications_done", {1000000}); },
            "cells/0000 counts 1000000 replications done of its"},
        Damage{"fewer_rows_than_done",
               [](const fs::path& p) {
                 const auto file = open_to_alter(p);
                 const h5::Handle set(
                     H5Dopen2(file.get(), "cells/0001/replications", H5P_DEFAULT));
                 h5::set_rows(set.get(), 3);
               },
               "cells/0001/replications is not "},
        Damage{"summary_of_another_shape",
               [](const fs::path& p) {
                 const auto file = open_to_alter(p);
                 ASSERT_GE(H5Ldelete(file.get(), "cells/0001/summary", H5P_DEFAULT), 0);
                 h5::write_dataset(file.get(), "cells/0001/summary", std::vector<double>(4), {2, 2});
               },
               "cells/0001/summary is not 5 x 7 x "},
        Damage{"ranges_beyond_replications",
               [](const fs::path& p) {
                 overwrite_u64(p, "cells/0000/replication_ranges", {0, 1000000});
               },
               "cells/0000/replication_ranges holds [0, 1000000), not a range of [0, 20)"}),
    [](const ::testing::TestParamInfo<Damage>& info) { return info.param.name; });

// ---------------------------------------------------------------------------
// 4. Merges racing into one file, and temporaries left by killed processes

TEST(ConcurrentMerges, NeverTouchEachOthersTemporaries) {
  TempDir dir("race");
  // shards large enough that two merges of them overlap (tenths of a second)
  std::vector<std::string> merge{"merge"};
  for (const char* shard : {"0/2", "1/2"}) {
    const auto part = dir / (std::string("part-") + shard[0] + ".h5");
    ASSERT_EQ(
        run_cli(run_to({"--means", shared_data("synthetic_4x9.csv"), "--alpha", "0", "--horizon",
                        "1e4", "--replications", "20000", "--seed", "3", "--quiet"},
                       part, {"--shard", shard}))
            .exit_code,
        0);
    merge.push_back(part.string());
  }
  const auto output = dir / "out.h5";
  merge.insert(merge.end(), {"-o", output.string(), "--json"});
  const auto reference = run_cli(merge);
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const auto digest = printed_digest(reference);
  const std::set<std::string> names{"part-0.h5", "part-1.h5", "out.h5"};

  // Each round, both racers build the whole merge under their own name. A
  // loser that deleted the winner's file would make it fail (its file gone
  // before it is linked into place).
  const auto race = [&](const std::vector<std::string>& args) {
    auto first = spawn_cli(args);
    auto second = spawn_cli(args);
    return std::vector<CliResult>{first->wait(), second->wait()};
  };
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE("new output, round " + std::to_string(round));
    fs::remove(output);
    auto results = race(merge);
    std::sort(results.begin(), results.end(),
              [](const CliResult& a, const CliResult& b) { return a.exit_code < b.exit_code; });
    ASSERT_EQ(results[0].exit_code, 0) << results[0].err;
    EXPECT_EQ(printed_digest(results[0]), digest);
    // the other one finished second, or found the output there
    const auto& loser = results[1];
    expect_one_line(loser, 2, {"output '" + output.string() + "'"});
    EXPECT_TRUE(loser.err.find("was created by another process while this one was building "
                               "it; it is left as it is") != std::string::npos ||
                loser.err.find("exists; use --overwrite") != std::string::npos)
        << loser.err;
    std::set<std::string> after;
    for (const auto& e : fs::directory_iterator(dir.dir())) after.insert(e.path().filename());
    EXPECT_EQ(after, names);
    const auto summary = run_cli({"summary", output.string(), "--json"});
    EXPECT_EQ(printed_digest(summary), digest);
  }
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("--overwrite, round " + std::to_string(round));
    // each replaces the file in turn, unless the other is replacing it then
    for (const auto& r : race(with(merge, {"--overwrite"}))) {
      if (r.exit_code == 0) {
        EXPECT_EQ(printed_digest(r), digest);
      } else {
        expect_one_line(
            r, 2, {"output '" + output.string() + "' is being written by another pfmab process"});
      }
    }
    EXPECT_TRUE(temporaries(dir.dir()).empty());
    EXPECT_EQ(printed_digest(run_cli({"summary", output.string(), "--json"})), digest);
  }
}

TEST(Temporaries, OnlyThoseOfEndedProcessesOfThisHostAreRemoved) {
  TempDir dir("abandoned");
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  pid_t ended = 0;
  {
    Spawned done("/bin/true", {});
    done.wait();
    ended = done.pid();
  }
  const auto name = [&](const std::string& who) { return ".out.h5.pfmab-new-" + who; };
  const auto killed = name(std::string(host) + "-" + std::to_string(ended));
  const auto running = name(std::string(host) + "-" + std::to_string(::getpid()));
  const auto elsewhere = name("another-host-" + std::to_string(ended));
  for (const auto& n : {killed, running, elsewhere}) dir.write(n, "half-built\n");

  const auto made = run_cli(run_to(small(), dir / "out.h5"));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::set<std::string> after;
  for (const auto& e : fs::directory_iterator(dir.dir())) after.insert(e.path().filename());
  EXPECT_EQ(after, (std::set<std::string>{"out.h5", running, elsewhere}));
}

}  // namespace
}  // namespace pfmab::testing
