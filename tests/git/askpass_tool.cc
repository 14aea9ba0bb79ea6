// Test tool: awaywork's askpass (aw::askpass_main, the code the awaywork binary runs in that
// mode) behind a recorder that appends its own argv to /tmp/aw-askpass-argv-<port>.log, the
// port read from git's prompt, so a test can see exactly what was on the askpass's command line.
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "git/git.h"

int main(int argc, char** argv) {
  std::string prompt = argc > 1 ? argv[1] : "";
  size_t end = prompt.rfind('\'');
  size_t colon = end == std::string::npos ? end : prompt.rfind(':', end);
  std::string port = colon == std::string::npos ? "" : prompt.substr(colon + 1, end - colon - 1);
  if (!port.empty() && port.find_first_not_of("0123456789") == std::string::npos) {
    std::string log = "/tmp/aw-askpass-argv-" + port + ".log";
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
      std::string line;
      for (int i = 0; i < argc; ++i) line += std::string(argv[i]) + (i + 1 < argc ? "\x1f" : "\n");
      (void)!::write(fd, line.data(), line.size());
      ::close(fd);
    }
  }
  return aw::askpass_main(argc, argv);
}
