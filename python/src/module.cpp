// _pfmab: the engine as the Python package pfmab sees it (python/pfmab/).
// The same library as the command line, called the way its commands call
// it (engine/app/cli.cpp): experiments loaded from a file or a text with
// overrides laid over them, run with the GIL released, reports as the JSON
// `--json` prints, outputs read row block by row block. Errors keep the
// command line's one-line messages: a UserError becomes ExperimentError
// (reading an output: OutputError), both ValueErrors; a SystemError OSError.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/io/experiment.hpp"
#include "pfmab/io/merge.hpp"
#include "pfmab/io/option_names.hpp"
#include "pfmab/io/parameters.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/run/run_experiment.hpp"
#include "pfmab/run/world.hpp"
#include "pfmab/sim/columns.hpp"
#include "pfmab/sim/shard.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"
#include "pfmab/util/stop_token.hpp"

#include "program.hpp"
#include "python_algorithm.hpp"

namespace py = pybind11;
using namespace pfmab;

namespace {

// pfmab.ExperimentError and pfmab.OutputError (imported in PYBIND11_MODULE).
py::handle experiment_error, output_error;

// pfmab.run's keywords, as the engine's messages name them.
constexpr io::OptionNames keywords{
    .output = "output", .overwrite = "overwrite=True", .shard = "shard"};

// Runs `step`, raising the Python exception its failure calls for: the
// message exactly as the command line prints it after "pfmab: error: ".
template <class Step>
auto raising(py::handle user_error, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const UserError& e) {
    PyErr_SetString(user_error.ptr(), excerpt(e.what(), message_chars).c_str());
  } catch (const SystemError& e) {
    PyErr_SetString(PyExc_OSError, e.what());
  }
  throw py::error_already_set();
}

// A command-line override: the parameter of `key` set to `text` as its flag
// would take it (a comma list sweeps), `label` naming it in messages, the
// means inline if `inline_means`.
struct Override {
  std::string key, label, text;
  bool inline_means = false;
};

std::vector<io::FlagValues> flag_values(const std::vector<Override>& overrides) {
  std::vector<io::FlagValues> values;
  for (const auto& given : overrides) {
    const auto* parameter = io::find_parameter(given.key);
    if (!parameter) throw UserError(fmt::format("{}: no such key", given.label));
    values.push_back(io::parse_flag(*parameter, given.label, given.text, given.inline_means));
  }
  return values;
}

// None: the overrides alone, as a command line without an experiment file.
io::Experiment load_file(const std::optional<std::filesystem::path>& path,
                         const std::vector<Override>& overrides, bool skip_refused) {
  return raising(experiment_error,
                 [&] { return io::load_experiment(path, flag_values(overrides), skip_refused); });
}

io::Experiment load_text(const std::string& text, const std::string& name,
                         const std::filesystem::path& directory,
                         const std::vector<Override>& overrides, bool skip_refused) {
  return raising(experiment_error, [&] {
    return io::load_experiment_text(text, name, directory, flag_values(overrides), skip_refused);
  });
}

// Runs `work` on a thread of its own while the calling thread waits with
// the GIL released, waking every 100 ms to call `tick` and to let Python run
// its signal handlers. Python's error in either (a KeyboardInterrupt from
// Ctrl-C, or a progress callback's) sets `stop`, which the work polls, and
// is raised once the work has ended: a stop during a run's set-up or the
// bounds' solves, which leave nothing to keep, as it came; the work's own
// error as the command line would print it.
void wait_for(const std::function<void()>& work, const std::function<void()>& tick,
              std::atomic<bool>& stop) {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    done = true;
    finished.notify_all();
  });
  std::optional<py::error_already_set> raised;
  for (bool over = false; !over;) {
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; });
      over = done;
    }
    if (raised) continue;
    try {
      tick();
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    } catch (py::error_already_set& e) {
      raised = std::move(e);
      stop = true;
    }
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (error) {
    raising(experiment_error, [&]() -> int {
      try {
        std::rethrow_exception(error);
      } catch (const Interrupted&) {
        if (raised) throw *raised;  // the work polled the stop it set
        throw;
      }
    });
  }
  if (raised) throw *raised;
}

std::vector<io::CellReport> describe(const io::Experiment& experiment, const StopToken& stop) {
  std::vector<io::CellReport> cells;
  theory::Games games;  // this call's alone: a session keeps no game of its calls
  for (std::size_t c = 0; c < experiment.cells.size(); ++c) {
    cells.push_back(io::describe(experiment.cells[c], experiment.values[c],
                                 experiment.replications(c), games, stop));
  }
  return cells;
}

// `pfmab bounds --json`'s object for `experiment`; Ctrl-C stops its C*
// solves (KeyboardInterrupt).
std::string bounds_json(const io::Experiment& experiment) {
  std::atomic<bool> stop{false};
  std::string json;
  wait_for([&] { json = io::bounds_json(describe(experiment, StopToken(&stop))).dump(); }, [] {},
           stop);
  return json;
}

py::dict progress_dict(const io::ProgressReport& report) {
  py::dict out;
  out["done"] = report.done;
  out["total"] = report.total;
  out["elapsed"] = report.elapsed;
  out["remaining"] = report.remaining ? py::cast(*report.remaining) : py::none();
  out["cell"] = report.cell;
  out["cells"] = report.cells;
  out["cell_name"] = report.cell_name;
  return out;
}

// Runs `experiment` as `pfmab run` does (wait_for), handing the latest
// progress to `progress` (a callable, or None) as it waits: a
// KeyboardInterrupt (Ctrl-C) stops the run as SIGINT stops the command line
// (every finished replication kept), then is raised, saying what was kept.
// Returns the report as `run --json` prints it.
std::string run_experiment(const io::Experiment& experiment, const std::filesystem::path& output,
                           unsigned threads, const std::string& shard, bool overwrite,
                           bool stderr_progress, const py::object& progress) {
  run::Options options;
  options.threads = threads;
  options.output = output;
  options.overwrite = overwrite;
  options.names = keywords;
  if (!shard.empty()) {
    options.shard =
        raising(experiment_error, [&] { return sim::parse_shard(shard, keywords.shard); });
  }
  std::atomic<bool> stop{false};
  options.stop = &stop;
  std::mutex mutex;
  std::optional<io::ProgressReport> latest;  // not yet handed to the callback
  if (!progress.is_none()) {
    options.progress = io::ProgressStyle::reported;
    options.on_progress = [&](const io::ProgressReport& report) {
      const std::lock_guard lock(mutex);
      latest = report;
    };
  } else if (stderr_progress) {
    options.progress = io::progress_style(false);
  }
  const auto tick = [&] {
    std::optional<io::ProgressReport> report;
    {
      const std::lock_guard lock(mutex);
      report = std::exchange(latest, std::nullopt);
    }
    if (report) progress(progress_dict(*report));
  };
  run::Outcome outcome;
  try {
    wait_for(
        [&] {
          run::OneRank world;
          outcome = run::run_experiment(experiment, options, world);
        },
        tick, stop);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_KeyboardInterrupt)) throw;
    if (!outcome.stopped) {  // before the first replication: nothing written
      PyErr_SetString(PyExc_KeyboardInterrupt,
                      "interrupted while setting up the run: nothing written");
      throw py::error_already_set();
    }
  }
  if (outcome.stopped) {
    const auto said =
        fmt::format("interrupted: {} of {} replications are in '{}'; run the same call to continue",
                    outcome.stopped->kept, outcome.stopped->asked, output.string());
    PyErr_SetString(PyExc_KeyboardInterrupt, said.c_str());
    throw py::error_already_set();
  }
  const auto& report = *outcome.report;
  auto out = io::to_json(report.seed, report.digest, report.cells);
  io::add_refused(out, report.refused);
  return out.dump();
}

// A stored cell's keys, as a report's "keys" give them (null: no effect),
// its instance named `instance` (io::instance_names).
nlohmann::json keys_json(const io::StoredCell& cell, const std::string& instance) {
  nlohmann::json keys = nlohmann::json::object();
  for (const auto& key :
       io::cell_keys(io::CellValues::from_json(cell.parameters, cell.instance), cell.mode)) {
    keys[key.name] = key.value;
  }
  keys["instance"] = instance;
  return keys;
}

// An output file, read as `pfmab summary` reads it (also while a run writes it).
class Output {
 public:
  explicit Output(const std::filesystem::path& path)
      : reader_(raising(output_error, [&] { return io::ResultsReader(path, keywords); })) {}

  std::uint64_t seed() const { return reader_.seed(); }
  std::string attribute(const std::string& name) const {
    return raising(output_error, [&] { return reader_.attribute(name); });
  }

  // What each cell's group says of it.
  py::list cells() const {
    py::list out;
    std::vector<std::string> given;
    for (const auto& cell : reader_.cells()) given.push_back(cell.instance);
    const auto names = io::instance_names(given);
    for (std::size_t c = 0; c < reader_.cells().size(); ++c) {
      const auto& cell = reader_.cells()[c];
      py::dict d;
      d["name"] = cell.name;
      d["parameters"] = cell.parameters.dump();
      d["algorithm"] = cell.algorithm;
      d["instance"] = names[c];
      d["mode"] = cell.mode;
      d["alpha"] = cell.alpha;
      d["horizon"] = cell.horizon;
      d["clients"] = cell.clients;
      d["arms"] = cell.arms;
      d["checkpoints"] = cell.checkpoints;
      d["requested"] = cell.requested;
      d["expected"] = cell.expected();
      d["done"] = cell.done;
      // None where the output records no time (made before pfmab did)
      if (cell.used) {
        d["cpu_seconds"] = cell.used->cpu_seconds;
        d["wall_seconds"] = cell.used->wall_seconds;
        d["timed_replications"] = cell.used->replications;
      } else {
        for (const auto* name : {"cpu_seconds", "wall_seconds", "timed_replications"}) {
          d[name] = py::none();
        }
      }
      d["keys"] = keys_json(cell, names[c]).dump();
      out.append(d);
    }
    return out;
  }

  // Rows [first, first + count) of cell `cell`, every column: a dict of
  // numpy arrays of [count, width] (width 1: [count]).
  py::dict rows(std::size_t cell, std::uint64_t first, std::uint64_t count) const {
    const auto block = raising(output_error, [&] { return reader_.rows(cell, first, count); });
    py::dict out;
    block.for_each_column([&](const auto& column, const auto& values) {
      using T = sim::ElementOf<decltype(column)>;
      std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(block.rows)};
      if (column.width != sim::Width::one) {
        shape.push_back(static_cast<py::ssize_t>(block.width(column)));
      }
      py::array_t<T> array(shape);
      std::copy(values.begin(), values.end(), array.mutable_data());
      out[column.name] = std::move(array);
    });
    return out;
  }

  // `pfmab summary --json`'s object.
  std::string summary_json() const {
    return raising(output_error, [&] {
      auto [reports, digest] = io::read_reports(reader_);
      auto out = io::to_json(reader_.seed(), digest, reports);
      io::add_refused(out, reader_.refused());
      return out.dump();
    });
  }

 private:
  io::ResultsReader reader_;
};

// The per-replication columns: name, width ("checkpoints", "clients" or
// "one") and whether the output summarises it.
py::list columns() {
  py::list out;
  sim::for_each_column([&](const auto& column) {
    const char* width = column.width == sim::Width::checkpoints ? "checkpoints"
                        : column.width == sim::Width::clients   ? "clients"
                                                                : "one";
    out.append(py::make_tuple(column.name, width, column.summary == sim::Summary::statistics));
  });
  return out;
}

// The experiment's keys: key, record name, flags, whether it sweeps, and
// whether it is the means.
py::list parameters() {
  py::list out;
  for (const auto& parameter : io::parameters()) {
    out.append(py::make_tuple(std::string(parameter.key), std::string(parameter.name()),
                              std::string(parameter.flags), parameter.sweeps,
                              parameter.type == io::ValueType::means));
  }
  return out;
}

// `python3 -m pfmab ARGS` (python/pfmab/__main__.py): the command line's
// program itself, run with the GIL released (the policy's calls take it),
// its algorithms written in Python imported by name; returns its exit
// status. `arguments` begins with the program's name.
int run_program(const std::vector<std::string>& arguments) {
  std::vector<std::string> kept(arguments);
  std::vector<char*> argv;
  for (auto& argument : kept) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const py::gil_scoped_release release;
  return cli::run_program(static_cast<int>(kept.size()), argv.data(), &python::resolve);
}

}  // namespace

PYBIND11_MODULE(_pfmab, m) {
  m.doc() = "pfmab's engine (use the pfmab package)";
  // The package's own (pfmab/errors.py), held for the life of the process.
  const auto errors = py::module_::import("pfmab.errors");
  experiment_error = py::object(errors.attr("ExperimentError")).release();
  output_error = py::object(errors.attr("OutputError")).release();

  py::class_<Override>(m, "Override")
      .def(py::init<std::string, std::string, std::string, bool>(), py::arg("key"),
           py::arg("label"), py::arg("text"), py::arg("inline_means") = false);

  py::class_<io::Experiment>(m, "Experiment")
      .def_readonly("source", &io::Experiment::source)
      .def_readonly("text", &io::Experiment::text)
      .def_readonly("seed", &io::Experiment::seed)
      .def_readonly("notes", &io::Experiment::notes)
      .def_property_readonly("cells", [](const io::Experiment& e) { return e.cells.size(); })
      .def_property_readonly("replications",
                             [](const io::Experiment& e) {
                               std::vector<std::uint64_t> out;
                               for (std::size_t c = 0; c < e.cells.size(); ++c) {
                                 out.push_back(e.replications(c));
                               }
                               return out;
                             })
      .def_property_readonly("algorithms",
                             [](const io::Experiment& e) {
                               std::vector<std::string> out;
                               for (const auto& values : e.values) {
                                 out.push_back(values.word("algorithm.name"));
                               }
                               return out;
                             })
      .def_property_readonly("canonical",
                             [](const io::Experiment& e) { return e.canonical.dump(); })
      .def_property_readonly("bounds_json", &bounds_json);

  m.def("load_file", &load_file, py::arg("path"), py::arg("overrides"),
        py::arg("skip_refused") = false);
  m.def("load_text", &load_text, py::arg("text"), py::arg("name"), py::arg("directory"),
        py::arg("overrides"), py::arg("skip_refused") = false);
  m.def("run", &run_experiment, py::arg("experiment"), py::arg("output"), py::arg("threads"),
        py::arg("shard"), py::arg("overwrite"), py::arg("stderr_progress"), py::arg("progress"));

  py::class_<Output>(m, "Output")
      .def(py::init<const std::filesystem::path&>())
      .def_property_readonly("seed", &Output::seed)
      .def("attribute", &Output::attribute)
      .def("cells", &Output::cells)
      .def("rows", &Output::rows, py::arg("cell"), py::arg("first"), py::arg("count"))
      .def("summary_json", &Output::summary_json);

  m.def(
      "register_algorithm",
      [](const std::string& name, const py::object& cls, const py::list& options) {
        raising(experiment_error, [&] { python::register_algorithm(name, cls, options); });
      },
      py::arg("name"), py::arg("cls"), py::arg("options"));
  // An experiment loaded in this process may name a Python class by its
  // "module:Class" (an experiment file's algorithm.name, a worker of
  // pfmab.run's processes=): imported when first named.
  algorithms::set_resolver(&python::resolve);
  m.def("run_program", &run_program, py::arg("arguments"));
  // `pfmab merge`: the shards of pfmab.run's worker processes joined
  m.def(
      "merge",
      [](const std::vector<std::filesystem::path>& parts, const std::filesystem::path& output,
         bool overwrite) {
        raising(experiment_error, [&] { io::merge_shards(parts, output, false, overwrite); });
      },
      py::arg("parts"), py::arg("output"), py::arg("overwrite"));
  m.def("max_threads", &limits::max_threads);
  m.def("columns", &columns);
  m.def("parameters", &parameters);
  m.attr("version") = PFMAB_VERSION;
  // the clone it was built from: the package refuses a module of another
  // (python/pfmab/_engine.py)
  m.attr("source_dir") = PFMAB_SOURCE_DIR;
}
