#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "pfmab/io/parameters.hpp"
#include "pfmab/sim/algorithm.hpp"

namespace pfmab::algorithms {

// The options an algorithm declares (its parameters, as the engine's are
// declared in io/parameters.cpp), and whose they are in messages ("PF-UCB's").
// A cell whose algorithm does not have an option refuses any value of it but
// its default, by the same check for every algorithm.
struct OptionGroup {
  std::string_view owner;
  std::span<const io::Parameter> parameters;
};

// An engine key an algorithm has no use for, and why ("it never
// communicates"): a sweep does not cross the algorithm with it (the cell is
// made once, with the key's default) and a summary shows no value for it.
struct IgnoredKey {
  std::string_view key;
  std::string_view why;
};

// What registering an algorithm declares.
struct AlgorithmEntry {
  std::string_view name;                 // as `algorithm.name` and --algorithm spell it
  const OptionGroup* options = nullptr;  // nullptr: none
  // The algorithm configured for one cell, from the cell's values (its
  // options among them). Throws UserError for options it refuses.
  std::shared_ptr<const sim::Algorithm> (*configure)(const io::CellValues& values,
                                                     const sim::CellContext& cell) = nullptr;
  // The engine's keys it ignores (another algorithm's options it ignores
  // without saying so).
  std::span<const IgnoredKey> ignores;
};

// Every registered algorithm, in registry.cpp's order, then those registered
// at run time in their order. A span handed out stays valid after a later
// registration (it shows the algorithms registered when it was taken).
std::span<const AlgorithmEntry> registered_algorithms();
// Registers an algorithm made at run time (a Python class: python/src/),
// after every compiled-in one, for the experiments loaded after it. Its
// options' parameters take io::Parameter::kRegisteredAtRunTime as their
// order, and keys that are new or another group's option declared alike
// (the caller checks: io is above this layer); the entry, its group and
// what they view must live as long as the process. Throws UserError for a
// name already registered.
void register_algorithm(const AlgorithmEntry& entry);
// How many algorithms were registered at run time: io::parameters() takes
// their options in when it changes.
std::size_t registrations();
// What finds an algorithm named "module:Class" (a Python class) that is not
// registered yet: it registers it, or throws UserError saying why it cannot
// (python/src/resolver.cpp imports the module), or throws whatever its
// program catches to run the name elsewhere (the command line re-executes
// itself under Python: engine/app/python_relaunch.cpp). Engine code never
// imports Python: the layers above install the resolver.
using Resolver = void (*)(std::string_view name);
void set_resolver(Resolver resolver);
// Calls the resolver for `name` if it is not registered, names a Python
// class ("module:Class") and a resolver is installed.
void resolve_algorithm(std::string_view name);
// The entry named `name` (resolve_algorithm first); throws UserError naming
// every registered one.
const AlgorithmEntry& find_algorithm(std::string_view name);
// The entry named `name`, or nullptr: an output's record may name an
// algorithm that the process which wrote it registered at run time.
const AlgorithmEntry* registered_algorithm(std::string_view name);
// Every registered algorithm's option group, each once.
std::vector<const OptionGroup*> option_groups();
// The first group declaring the parameter of `key`, nullptr for an engine
// one. (Groups may share a key, declared alike: an algorithm registered at
// run time may take a compiled-in one's option, as a Python
// explore-then-commit takes algorithm.pulls_per_arm.)
const OptionGroup* owner_of(std::string_view key);
// Whether `group` (nullptr: none) declares the parameter of `key`.
bool declares(const OptionGroup* group, std::string_view key);

}  // namespace pfmab::algorithms
