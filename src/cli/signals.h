// Ctrl-C and termination: the first SIGINT/SIGTERM/SIGHUP asks the running unit to stop (its
// processes are killed and it is recorded as interrupted); the flag is the only state a signal
// handler may touch, hence a process-wide atomic.
#pragma once

#include <functional>

namespace aw {

// Installs the handlers and ignores SIGPIPE. Returns the "was I interrupted?" predicate.
std::function<bool()> install_interrupt_handlers();

}  // namespace aw
