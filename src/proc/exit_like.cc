// exit_like (runner.h): a stand-in process ends as its child did.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/runner.h"

namespace aw {

void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    ::signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    ::sigprocmask(SIG_UNBLOCK, &one, nullptr);
    ::raise(sig);
    _exit(128 + sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace aw
