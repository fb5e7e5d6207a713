#include "policy_state.hpp"

#include <utility>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"

#include "hook_gil.hpp"

namespace py = pybind11;

namespace pfmab::python {
namespace {

// Raises pfmab.PolicyError: `call` returned something the engine cannot
// play, `what` saying what and why. The GIL is held.
[[noreturn]] void impossible(const std::string& call, const std::string& what) {
  const auto error = py::module_::import("pfmab.errors").attr("PolicyError");
  PyErr_SetString(error.ptr(), fmt::format("{} returned {}", call, what).c_str());
  throw py::error_already_set();
}

std::string shown(py::handle value) { return excerpt(py::repr(value).cast<std::string>(), 80); }

// A number of pulls: an int (or a numpy integer), not a bool, at least 0
// and at most the longest horizon, so that no run's slots overflow.
std::uint64_t pulls_of(py::handle value, const std::string& call, const std::string& where) {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    impossible(call, fmt::format("{} pulls {}: pulls are whole numbers (an int), not {}", where,
                                 shown(value), Py_TYPE(value.ptr())->tp_name));
  }
  const auto whole = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!whole) throw py::error_already_set();
  if (whole < py::int_(0)) {
    impossible(call, fmt::format("{} pulls {}: pulls are at least 0", where, shown(value)));
  }
  if (whole > py::int_(limits::max_horizon)) {
    impossible(call, fmt::format("{} pulls {}: more than the longest horizon's {} slots", where,
                                 shown(value), limits::max_horizon));
  }
  return whole.cast<std::uint64_t>();
}

}  // namespace

PolicyState::PolicyState(py::object policy, std::size_t clients, std::size_t arms)
    : policy_(std::move(policy)),
      class_name_(py::type::of(policy_).attr("__name__").cast<std::string>()),
      arms_(arms),
      planned_(clients) {}

PolicyState::~PolicyState() {
  const HookGil gil;
  policy_ = py::object();
}

std::string PolicyState::call_name(const char* method, std::optional<std::size_t> m) const {
  return m ? fmt::format("{}.{}(m={})", class_name_, method, *m)
           : fmt::format("{}.{}()", class_name_, method);
}

std::uint32_t PolicyState::arm_of(py::handle value, const std::string& call) const {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    impossible(call, fmt::format("arm {}: an arm is an int, not {}", shown(value),
                                 Py_TYPE(value.ptr())->tp_name));
  }
  const auto whole = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!whole) throw py::error_already_set();
  if (whole < py::int_(0) || whole >= py::int_(arms_)) {
    impossible(call, fmt::format("arm {}: the arms are 0 to {}", shown(value), arms_ - 1));
  }
  return whole.cast<std::uint32_t>();
}

bool PolicyState::finished() const {
  const HookGil gil;
  return policy_.attr("finished")().cast<bool>();
}

void PolicyState::begin_phase(std::uint64_t phase, std::span<const std::uint32_t> participants) {
  const HookGil gil;
  policy_.attr("begin_phase")(phase, std::vector(participants.begin(), participants.end()));
}

// The runs as the method returns them: an iterable of (arms, rounds), where
// rounds is the pulls of each arm or a list of each arm's pulls.
void PolicyState::plan(std::size_t m, std::vector<sim::Run>& runs) {
  const HookGil gil;
  const auto call = call_name("plan", m);
  const py::object returned = policy_.attr("plan")(m);
  auto& planned = planned_[m];
  planned.clear();
  if (!py::isinstance<py::iterable>(returned) || py::isinstance<py::str>(returned)) {
    impossible(call, fmt::format("{}: a plan is a list of (arms, rounds) runs", shown(returned)));
  }
  for (const auto item : returned) {
    const auto where = fmt::format("run {}", planned.size());
    if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) ||
        py::len(item) != 2) {
      impossible(call, fmt::format("{} {}: a run is a pair (arms, rounds)", where, shown(item)));
    }
    const auto run = py::reinterpret_borrow<py::sequence>(item);
    PlannedRun planned_run;
    if (!py::isinstance<py::iterable>(run[0])) {
      impossible(
          call, fmt::format("{}'s arms {}: a run's arms are a list of ints", where, shown(run[0])));
    }
    for (const auto arm : py::reinterpret_borrow<py::iterable>(run[0])) {
      planned_run.arms.push_back(arm_of(arm, call));
    }
    const py::object rounds = run[1];
    std::uint64_t each = 0;
    if (py::isinstance<py::iterable>(rounds)) {
      for (const auto count : rounds) {
        planned_run.counts.push_back(pulls_of(count, call, fmt::format("{}'s arm", where)));
      }
      if (planned_run.counts.size() != planned_run.arms.size()) {
        impossible(call, fmt::format("{}: {} counts for {} arms", where, planned_run.counts.size(),
                                     planned_run.arms.size()));
      }
    } else {
      each = pulls_of(rounds, call, fmt::format("{}'s arms", where));
    }
    planned.push_back(std::move(planned_run));
    sim::Run planned_as;
    planned_as.rounds = each;
    runs.push_back(planned_as);
  }
  // The spans, once `planned` no longer moves.
  for (std::size_t i = 0; i < planned.size(); ++i) {
    auto& run = runs[runs.size() - planned.size() + i];
    run.arms = planned[i].arms;
    run.counts = planned[i].counts;
  }
}

void PolicyState::record(std::size_t m, std::uint32_t arm, std::uint64_t pulls, double sum) {
  const HookGil gil;
  policy_.attr("record")(m, arm, pulls, sum);
}

std::uint32_t PolicyState::exploit_arm(std::size_t m) const {
  const HookGil gil;
  return arm_of(policy_.attr("exploit_arm")(m), call_name("exploit_arm", m));
}

void PolicyState::aggregate(std::span<const std::uint32_t> participants) {
  const HookGil gil;
  policy_.attr("aggregate")(std::vector(participants.begin(), participants.end()));
}

void PolicyState::update(std::size_t m) {
  const HookGil gil;
  policy_.attr("update")(m);
}

void PolicyState::end_phase() {
  const HookGil gil;
  policy_.attr("end_phase")();
}

std::optional<std::uint32_t> PolicyState::fixed_arm(std::size_t m) const {
  const HookGil gil;
  const py::object arm = policy_.attr("fixed_arm")(m);
  if (arm.is_none()) return std::nullopt;
  return arm_of(arm, call_name("fixed_arm", m));
}

}  // namespace pfmab::python
