#include "provider/doctor.h"

#include <fmt/format.h>

#include <stdlib.h>

#include <algorithm>
#include <cerrno>

#include "base/fs.h"
#include "proc/capture.h"
#include "provider/provider.h"

namespace aw {

namespace {

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 120 ? line.substr(0, 120) : line;
}

Check check_one(const ProviderSpec& spec, const std::string& path_value, bool required) {
  Check c;
  c.name = fmt::format("agent CLI {} ({})", spec.version_argv0, spec.name);
  auto found = find_program(spec.version_argv0, path_value);
  if (!found) {
    c.ok = !required;
    c.detail = "not installed";
    if (required)
      c.fix = spec.name == "claude" || spec.name == "codex"
                  ? "scripts/agent-clis   # then put its bin folder on the agent's PATH"
                  : fmt::format("install {} and put it on the agent's PATH", spec.version_argv0);
    return c;
  }
  auto timeout = find_program("timeout", path_value + ":/usr/bin:/bin");
  // A throwaway HOME: some CLIs create their state folders even for --version, and a shared
  // path such as /nonexistent would then exist for every user on the machine.
  char home[] = "/tmp/awaywork-doctor-home-XXXXXX";
  if (!::mkdtemp(home)) {
    c.ok = !required;
    c.detail = fmt::format("cannot create a temporary HOME: {}", errno_text(errno));
    return c;
  }
  CaptureSpec cs;
  cs.argv = {timeout ? *timeout : "/usr/bin/timeout", "20", *found, "--version"};
  cs.env = {"PATH=" + path_value, std::string("HOME=") + home, "LANG=C.UTF-8"};
  auto run = capture(cs);
  (void)remove_tree(home);
  if (!run || run->exit_code != 0) {
    c.ok = !required;
    c.detail =
        fmt::format("{}: --version failed: {}", *found,
                    run ? first_line(run->err.empty() ? run->out : run->err) : run.error().message);
    if (required) c.fix = fmt::format("{} --version   # see why it does not start", *found);
    return c;
  }
  c.ok = true;
  c.detail = fmt::format("{} at {}", first_line(run->out), *found);
  return c;
}

}  // namespace

std::vector<Check> agent_cli_checks(const std::string& path_value,
                                    const std::vector<std::string>& required) {
  std::vector<Check> out;
  for (const auto& spec : builtin_providers()) {
    if (spec.version_argv0.empty()) continue;
    bool req = std::find(required.begin(), required.end(), spec.name) != required.end();
    out.push_back(check_one(spec, path_value, req));
  }
  return out;
}

}  // namespace aw
