#pragma once

#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

namespace pfmab::python {

// Registers the Python class `cls` (a subclass of pfmab.Algorithm,
// python/pfmab/algorithm.py) as the algorithm `name` (its "module:Class")
// for the experiments loaded after this call (algorithms::register_algorithm).
// `options` is its options' declarations, each a tuple (name, type, default,
// help, least, most): type "real", "whole" or "word", default as its flag
// would spell it, least and most bounding a whole value. Each becomes the
// key algorithm.<name> like any algorithm's option; one that a compiled-in
// algorithm declares alike (explore-then-commit's pulls_per_arm) is shared.
// Registering the same name again with the same options takes the new class
// (a class defined again in a notebook); with other options it is refused.
// Throws UserError for an option that cannot be declared.
void register_algorithm(const std::string& name, const pybind11::object& cls,
                        const pybind11::list& options);

// The engine's resolver (algorithms::Resolver) in a process running Python:
// registers the class that `name` ("module:Class") names, imported from the
// Python path by pfmab.algorithm.resolve. Throws UserError naming `name` and
// why it names no pfmab.Algorithm class: its module cannot be imported, or
// has no such attribute, or the attribute is something else.
void resolve(std::string_view name);

}  // namespace pfmab::python
