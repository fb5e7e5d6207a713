#include "python_algorithm.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/io/parameters.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/phased.hpp"
#include "pfmab/util/error.hpp"

#include "hook_gil.hpp"
#include "policy_state.hpp"

namespace py = pybind11;

namespace pfmab::python {
namespace {

// A registered class and what the registry's tables view of it: made once
// per name and kept for the life of the process (never freed, so that
// nothing of it outlives the interpreter's finalisation either).
struct Registration {
  std::string name;
  std::deque<std::string> texts;  // the strings `parameters` view, at fixed addresses
  std::vector<io::Parameter> parameters;
  algorithms::OptionGroup group;
  algorithms::AlgorithmEntry entry;
  std::string declaration;  // the options as given: a registration again must match
  py::object cls;           // read and written with the GIL held

  std::string_view keep(std::string text) { return texts.emplace_back(std::move(text)); }
};

std::mutex registrations_mutex;
std::vector<Registration*> registrations;

Registration* find_registration(std::string_view name) {
  for (auto* registration : registrations) {
    if (registration->name == name) return registration;
  }
  return nullptr;
}

// The cell's algorithm: the class, and the context each replication's
// object is made with (pfmab.Algorithm's constructor).
class PythonAlgorithm final : public sim::Algorithm {
 public:
  PythonAlgorithm(std::string_view name, py::object cls, py::object context)
      : name_(name), cls_(std::move(cls)), context_(std::move(context)) {}
  ~PythonAlgorithm() override {
    const py::gil_scoped_acquire gil;
    cls_ = py::object();
    context_ = py::object();
  }

  std::string_view name() const override { return name_; }
  sim::Protocol protocol() const override { return sim::Protocol::phased; }
  // One object per replication, so that replications share no state.
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    std::optional<PolicyState> state;
    {
      const HookGil gil;
      state.emplace(cls_(context_), cell.instance().clients(), cell.instance().arms());
    }
    return sim::run_phased(cell, *state, seed, replication, stop);
  }
  std::string schedule() const override { return "its plan()'s"; }
  bool cost_modelled() const override { return false; }  // its calls are Python's

 private:
  std::string_view name_;
  py::object cls_, context_;
};

// The registry's configure for every Python class: the cell's options handed
// to the class's _context, which checks what the engine's declaration
// cannot (a real's range, a word's choices) and raises ValueError for a
// value it refuses.
std::shared_ptr<const sim::Algorithm> configure(const io::CellValues& values,
                                                const sim::CellContext& cell) {
  const auto& name = values.word("algorithm.name");
  const py::gil_scoped_acquire gil;
  const Registration* registration = nullptr;
  {
    const std::lock_guard lock(registrations_mutex);
    registration = find_registration(name);
  }
  if (!registration) throw std::logic_error(fmt::format("'{}' is not a Python algorithm", name));
  py::dict options;
  for (const auto& parameter : registration->parameters) {
    const auto key = py::str(std::string(parameter.name()));
    const auto& value = values.at(parameter.key);
    switch (parameter.type) {
      case io::ValueType::real:
        options[key] = std::get<double>(value);
        break;
      case io::ValueType::whole:
        options[key] = std::get<std::uint64_t>(value);
        break;
      default:
        options[key] = std::get<std::string>(value);
    }
  }
  try {
    auto context = registration->cls.attr("_context")(cell.instance.clients(), cell.instance.arms(),
                                                      cell.alpha, cell.horizon, options);
    return std::make_shared<PythonAlgorithm>(registration->name, registration->cls,
                                             std::move(context));
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ValueError)) throw;
    throw UserError(fmt::format("{}: {}", name, py::str(e.value()).cast<std::string>()));
  }
}

io::ValueType value_type(const std::string& option, const std::string& type) {
  if (type == "real") return io::ValueType::real;
  if (type == "whole") return io::ValueType::whole;
  if (type == "word") return io::ValueType::word;
  throw UserError(
      fmt::format("option '{}': type '{}' (expected real, whole or word)", option, type));
}

// One option's parameter, kept by `registration`. A key another algorithm
// declares is shared only if declared alike: a cell has one value of it.
io::Parameter declare(Registration& registration, const py::handle& declaration) {
  const auto fields = declaration.cast<py::tuple>();
  const auto option = fields[0].cast<std::string>();
  io::Parameter parameter;
  parameter.key = registration.keep("algorithm." + option);
  parameter.order = io::Parameter::kRegisteredAtRunTime;
  parameter.type = value_type(option, fields[1].cast<std::string>());
  parameter.fallback = registration.keep(fields[2].cast<std::string>());
  parameter.sweeps = true;
  parameter.help = registration.keep(fields[3].cast<std::string>());
  parameter.least = fields[4].cast<std::uint64_t>();
  parameter.most = fields[5].cast<std::uint64_t>();
  const auto declared = [&] {
    try {
      io::parse_value(parameter, parameter.fallback);
    } catch (const UserError& e) {
      throw UserError(
          fmt::format("option '{}': its default '{}' {}", option, parameter.fallback, e.what()));
    }
  };
  declared();
  if (const auto* taken = io::find_parameter(parameter.key)) {
    const auto* owner = algorithms::owner_of(parameter.key);
    if (!owner) {
      throw UserError(fmt::format("option '{}': {} is one of the engine's keys; name it otherwise",
                                  option, parameter.key));
    }
    if (taken->type != parameter.type || taken->fallback != parameter.fallback ||
        taken->least != parameter.least || taken->most != parameter.most) {
      throw UserError(fmt::format(
          "option '{}': {} is {}'s option, with another type, default or range (default '{}'); "
          "declare it alike to share it, or name it otherwise",
          option, parameter.key, owner->owner, taken->fallback));
    }
  }
  return parameter;
}

}  // namespace

void register_algorithm(const std::string& name, const py::object& cls, const py::list& options) {
  const std::lock_guard lock(registrations_mutex);
  const auto declaration = py::repr(options).cast<std::string>();
  if (auto* registered = find_registration(name)) {
    if (registered->declaration != declaration) {
      throw UserError(fmt::format(
          "algorithm '{}' is registered in this process with other options ({}); restart "
          "Python to change them, or give the class another name",
          name, registered->declaration));
    }
    registered->cls = cls;
    return;
  }
  auto registration = std::make_unique<Registration>();
  registration->name = name;
  registration->declaration = declaration;
  registration->cls = cls;
  for (const auto& option : options) {
    registration->parameters.push_back(declare(*registration, option));
  }
  registration->group = {registration->name, registration->parameters};
  registration->entry = {
      .name = registration->name,
      .options = registration->parameters.empty() ? nullptr : &registration->group,
      .configure = &configure,
      .ignores = {}};
  algorithms::register_algorithm(registration->entry);
  registrations.push_back(registration.release());
}

void resolve(std::string_view name) {
  const py::gil_scoped_acquire gil;
  try {
    py::module_::import("pfmab.algorithm").attr("resolve")(py::str(name.data(), name.size()));
  } catch (py::error_already_set& e) {
    if (!e.matches(py::module_::import("pfmab.errors").attr("ExperimentError"))) throw;
    throw UserError(py::str(e.value()).cast<std::string>());
  }
}

}  // namespace pfmab::python
