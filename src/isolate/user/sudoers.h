// The two sudoers lines of isolation `user`, and the whole setup the owner pastes as root.
// Exactly two rules, nothing broader: run anything as the worker (SETENV, so that a phase's
// environment travels by name), and for root only the two chowns of a unit folder
// /tmp/awaywork-XXXXXX, where each X is the class [A-Za-z0-9] (never `*`, which would match a
// space, a second path or "../").
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aw {

struct SudoersParams {
  std::string owner;  // the owner's user name
  uid_t owner_uid = 0;
  gid_t owner_gid = 0;
  std::string worker;  // the worker's user name
};

// "/usr/bin/chown" (or "/bin/chown" where /usr/bin has none): the path sudoers names and
// awaywork runs, which must be the same string.
std::string chown_path();

// The two lines, without newlines, in the order above.
std::vector<std::string> sudoers_lines(const SudoersParams& p);

// /etc/sudoers.d/awaywork-WORKER (no dot in the name: sudo's includedir skips such files).
std::string sudoers_file(const std::string& worker);

// One shell command that installs the two lines through visudo (which validates them).
std::string sudoers_install_command(const SudoersParams& p);

// The whole setup for the owner to paste: useradd, cron/at deny lists, the sudoers file,
// the sysctls, closing the owner's home.
std::string print_setup(const SudoersParams& p, const std::string& owner_home);

}  // namespace aw
