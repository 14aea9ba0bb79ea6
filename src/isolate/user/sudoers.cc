#include "isolate/user/sudoers.h"

#include "isolate/user/worker.h"

#include <unistd.h>

#include <fmt/format.h>

namespace aw {

namespace {

constexpr const char* kUnitPattern =
    "/tmp/awaywork-[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]";

}  // namespace

std::string chown_path() {
  return ::access("/usr/bin/chown", X_OK) == 0 ? "/usr/bin/chown" : "/bin/chown";
}

std::vector<std::string> sudoers_lines(const SudoersParams& p) {
  // ':' must be escaped inside a sudoers command argument.
  std::string c = chown_path();
  return {
      fmt::format("{} ALL=({}) NOPASSWD:SETENV: ALL", p.owner, p.worker),
      fmt::format("{} ALL=(root) NOPASSWD: {} -R -h -P {}\\: {}, {} -R -h -P {}\\:{} {}", p.owner,
                  c, p.worker, kUnitPattern, c, p.owner_uid, p.owner_gid, kUnitPattern),
  };
}

std::string sudoers_file(const std::string& worker) {
  return "/etc/sudoers.d/awaywork-" + worker;
}

std::string sudoers_install_command(const SudoersParams& p) {
  // visudo with `tee` as its editor writes stdin into its temporary copy, then validates it and
  // installs it 0440 only when it parses.
  auto lines = sudoers_lines(p);
  return fmt::format("printf '%s\\n' '{}' '{}' | sudo EDITOR=tee visudo -f {}", lines[0], lines[1],
                     sudoers_file(p.worker));
}

std::string print_setup(const SudoersParams& p, const std::string& owner_home) {
  auto lines = sudoers_lines(p);
  std::string w = p.worker;
  std::string out;
  out += "# awaywork isolation `user`: run as root (e.g. `sudo -i`), once per machine.\n";
  out += fmt::format("# The worker: no home, no login shell, its own group only.\n");
  out += fmt::format(
      "useradd --system --user-group --no-create-home --home-dir {} "
      "--shell /usr/sbin/nologin {}\n",
      worker_home(w), w);
  out += "# No cron or at jobs for the worker (nothing may outlive a phase).\n";
  out += fmt::format("grep -qx {0} /etc/cron.deny 2>/dev/null || echo {0} >> /etc/cron.deny\n", w);
  out += fmt::format("grep -qx {0} /etc/at.deny 2>/dev/null || echo {0} >> /etc/at.deny\n", w);
  out += fmt::format("# Exactly two sudoers rules for {}, validated by visudo:\n", p.owner);
  out += fmt::format("cat > /tmp/awaywork-sudoers <<'EOF'\n{}\n{}\nEOF\n", lines[0], lines[1]);
  out += fmt::format(
      "visudo -cf /tmp/awaywork-sudoers && install -m 0440 /tmp/awaywork-sudoers {}; "
      "rm -f /tmp/awaywork-sudoers\n",
      sudoers_file(w));
  out += "# Links in sticky folders (/tmp) are followed only by their owner.\n";
  out +=
      "printf 'fs.protected_hardlinks = 1\\nfs.protected_symlinks = 1\\n' > "
      "/etc/sysctl.d/60-awaywork.conf\n";
  out += "sysctl -w fs.protected_hardlinks=1 fs.protected_symlinks=1\n";
  out += fmt::format("# The worker must not read the owner's files.\n");
  out += fmt::format("chmod o-rwx {}\n", owner_home);
  return out;
}

}  // namespace aw
