#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace pfmab::fuzz {

// The input as text.
inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A private directory for the files a target writes its inputs to, made
// once per process under TMPDIR and removed when it ends: libFuzzer runs
// several processes at once (-fork, -jobs), each with its own.
class Sandbox {
 public:
  static const Sandbox& get() {
    static const Sandbox sandbox;
    return sandbox;
  }

  const std::filesystem::path& dir() const { return dir_; }

  // Writes `text` to dir()/name (replacing it) and returns its path.
  std::filesystem::path write(const std::string& name, std::string_view text) const {
    const auto path = dir_ / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) std::abort();  // a full /tmp: no verdict on this input is possible
    return path;
  }

  ~Sandbox() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  Sandbox() {
    std::string name = (std::filesystem::temp_directory_path() / "pfmab-fuzz-XXXXXX").string();
    if (!::mkdtemp(name.data())) std::abort();
    dir_ = name;
  }

  std::filesystem::path dir_;
};

}  // namespace pfmab::fuzz
