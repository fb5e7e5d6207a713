#pragma once

#include <atomic>

// SIGINT and SIGTERM as the program takes them. From its first instant they
// set a flag that the run and the bounds poll, so that a stop request ends
// the set-up (a C* solve, the output's creation) or the run within about a
// millisecond, with one line, exit status 130 and nothing half-written; a
// second request ends the program at once. Commands that never poll
// (validate, summary, merge, export) take them as the default does.
namespace pfmab::cli {

// Catches both signals into the flag; the first thing the program does.
void catch_stop_requests();

// The flag: true once either signal has come.
std::atomic<bool>& stop_requested();

// Gives both signals back their default action, for a command that never
// polls the flag; a request already made ends the program now, as the
// default action would have.
void release_stop_requests();

}  // namespace pfmab::cli
