#include "stop_requests.hpp"

#include <csignal>

namespace pfmab::cli {
namespace {

std::atomic<bool> requested{false};
volatile std::sig_atomic_t signal_number = 0;

extern "C" void request_stop(int number) {
  signal_number = number;
  requested.store(true);
}

}  // namespace

void catch_stop_requests() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the program at once
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::atomic<bool>& stop_requested() { return requested; }

void release_stop_requests() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (requested.load()) std::raise(signal_number);
}

}  // namespace pfmab::cli
