// Child side of the network namespace: a new one has only a loopback interface, down.
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "isolate/sandbox/steps.h"

namespace aw::sandbox {

std::string bring_up_loopback() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return step_error("network", "socket", errno);
  struct ifreq ifr {};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  int rc = ::ioctl(s, SIOCGIFFLAGS, &ifr);
  if (rc == 0) {
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    rc = ::ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  int e = errno;
  ::close(s);
  return rc == 0 ? std::string() : step_error("network", "bring up lo", e);
}

}  // namespace aw::sandbox
