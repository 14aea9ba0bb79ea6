// A parent in the state no child of awaywork's may inherit, and how to read what a child got:
// shared by the tests of spawn_tied_child (tests/proc) and of its users, watch's UnitChild and
// serve's Children. A child that runs `/bin/cat /proc/self/status` reports its blocked and ignored
// signals (SigBlk, SigIgn); one that runs `/bin/ls -l /proc/self/fd/` its open fds.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <sstream>
#include <string>

namespace aw::test {

// Blocks SIGUSR1 and SIGUSR2 in the calling thread, ignores SIGPIPE and SIGHUP, and holds an fd
// without close-on-exec on a file of its own; puts all of it back when it goes.
class DirtyParent {
 public:
  DirtyParent() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigaddset(&s, SIGUSR2);
    ::pthread_sigmask(SIG_BLOCK, &s, &old_mask_);
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old_pipe_);
    ::sigaction(SIGHUP, &ign, &old_hup_);
    char tmpl[] = "/tmp/aw-leaked-fd-XXXXXX";
    fd_ = ::mkstemp(tmpl);  // no O_CLOEXEC: a plain fork and exec would pass it on
    path_ = tmpl;
  }
  ~DirtyParent() {
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    ::sigaction(SIGPIPE, &old_pipe_, nullptr);
    ::sigaction(SIGHUP, &old_hup_, nullptr);
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  DirtyParent(const DirtyParent&) = delete;
  DirtyParent& operator=(const DirtyParent&) = delete;

  bool ok() const { return fd_ >= 0; }
  // The file the inheritable fd is open on: `ls -l /proc/self/fd/` in a child that got it shows it.
  const std::string& leaked_path() const { return path_; }

 private:
  sigset_t old_mask_;
  struct sigaction old_pipe_ {}, old_hup_ {};
  int fd_ = -1;
  std::string path_;
};

// A field of /proc/<pid>/status text ("SigBlk" -> "0000000000000000"); "" when absent.
inline std::string status_field(const std::string& status, const std::string& name) {
  std::istringstream in(status);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + ":", 0) == 0) {
      size_t at = line.find_first_not_of(" \t", name.size() + 1);
      return at == std::string::npos ? "" : line.substr(at);
    }
  return "";
}

// No signal in the mask.
inline constexpr char kNoSignals[] = "0000000000000000";

}  // namespace aw::test
