#include "cli/signals.h"

#include <signal.h>

#include <atomic>

namespace aw {

namespace {
std::atomic<bool> g_interrupted{false};  // written only by the signal handler
void on_signal(int) {
  g_interrupted.store(true);
}
}  // namespace

std::function<bool()> install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return [] { return g_interrupted.load(); };
}

}  // namespace aw
