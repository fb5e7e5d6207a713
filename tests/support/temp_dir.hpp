#pragma once

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pfmab::testing {

// A fresh temporary directory per test, named after it (or "suite" outside
// a test), removed afterwards.
class TempDir {
 public:
  explicit TempDir(const std::string& what) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info ? info->name() : "suite";
    for (auto& ch : test) {
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("pfmab-" + what + "-" + std::to_string(::getpid()) + "-" + test);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

  // Writes `text` to dir()/name, failing the test if it cannot.
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
    ASSERT_TRUE(out.good()) << "cannot write " << (dir_ / name);
  }

  // `text` with every "{dir}" replaced by the directory.
  std::string expand(std::string text) const {
    const std::string placeholder = "{dir}";
    for (auto at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at)) {
      text.replace(at, placeholder.size(), dir_.string());
      at += dir_.string().size();
    }
    return text;
  }
  std::vector<std::string> expand(std::vector<std::string> texts) const {
    for (auto& t : texts) t = expand(std::move(t));
    return texts;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace pfmab::testing
