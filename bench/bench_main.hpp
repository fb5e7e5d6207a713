#pragma once

// main() of a benchmark program that has flags of its own (`--name=value`),
// which Google Benchmark would refuse as unknown.
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <string>
#include <string_view>

#include <benchmark/benchmark.h>

namespace pfmab::bench {

struct OwnFlag {
  std::string_view prefix;                               // "--name="
  std::function<std::string(std::string_view)> set;      // "" or what is wrong with the value
};

// Takes the program's own flags out of the command line (exit status 2 on a
// bad value), passes the rest to Benchmark, registers and runs the
// benchmarks; exit status 1 if one of them `failed` a check.
inline int run_benchmarks(int argc, char** argv, std::string_view program,
                          std::initializer_list<OwnFlag> own, void (*register_all)(),
                          const bool& failed) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const OwnFlag* flag = nullptr;
    for (const auto& f : own) {
      if (arg.starts_with(f.prefix)) flag = &f;
    }
    if (!flag) {
      argv[kept++] = argv[i];
      continue;
    }
    if (const auto error = flag->set(arg.substr(flag->prefix.size())); !error.empty()) {
      std::cerr << program << ": " << error << '\n';
      return 2;
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return failed ? 1 : 0;
}

// `--scale=F`, a positive factor on a program's workloads, into `scale`.
inline OwnFlag scale_flag(double& scale) {
  return {"--scale=", [&scale](std::string_view value) -> std::string {
            scale = std::strtod(std::string(value).c_str(), nullptr);
            return scale > 0 ? "" : "--scale must be a positive number";
          }};
}

}  // namespace pfmab::bench
