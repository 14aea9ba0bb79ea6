#include "isolate/isolator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/fs.h"

extern char** environ;

namespace aw {

Result<std::string> write_lent_folder(const std::string& parent, const LentFolder& folder) {
  for (int n = 0; n < 100; ++n) {
    std::string dir = parent + "/lent-" + std::to_string(n);
    if (::mkdir(dir.c_str(), 0755) != 0) {
      if (errno == EEXIST) continue;
      return fail("create {}: {}", dir, std::strerror(errno));
    }
    ::chmod(dir.c_str(), 0755);  // whatever the umask
    for (const auto& [name, content] : folder.files) {
      if (name.empty() || name.find('/') != std::string::npos)
        return fail("lent file name '{}'", name);
      AW_CHECK(write_file(dir + "/" + name, content, 0644));
      ::chmod((dir + "/" + name).c_str(), 0644);
    }
    return dir;
  }
  return fail("no free lent folder under {}", parent);
}

Result<Argv> awaywork_mcp_relay(Isolator& iso) {
  // This very program, never a name looked up in the unit's PATH (which the agent can change
  // between rounds).
  char buf[PATH_MAX];
  if (!::realpath("/proc/self/exe", buf)) return fail("cannot find awaywork's own program");
  std::string program(buf);
  // Runnable where the CLI runs: lent read-only into a view that would not have it (awaywork
  // outside /usr, as in a build tree); nothing when unsandboxed.
  if (!program.starts_with("/usr/")) {
    auto lent = iso.lend_path(program);
    if (!lent) return fail("the MCP relay (awaywork itself): {}", lent.error().message);
  }
  return Argv{program, "__mcp-relay"};
}

Result<RunFolder> make_run_folder(const std::string& state_dir, const std::string& id) {
  RunFolder run{state_dir + "/runs/" + id, state_dir + "/runs/" + id + "/work"};
  AW_CHECK(make_dirs(state_dir + "/runs", 0700));
  if (::mkdir(run.root.c_str(), 0700) != 0)
    return fail("create run folder {}: {}", run.root, errno_text(errno));
  return run;
}

Result<UnitPaths> run_folder_layout(const RunFolder& run) {
  UnitPaths p{run.work, run.root + "/home", run.root + "/tmp", run.root + "/outputs",
              run.root + "/prompt.md"};
  for (const auto* sub : {&p.home, &p.tmp, &p.outputs})
    if (::mkdir(sub->c_str(), 0700) != 0) return fail("create {}: {}", *sub, errno_text(errno));
  return p;
}

const EnvPairs kPhaseGitEnv = {{"GIT_CONFIG_GLOBAL", "/dev/null"},
                               {"GIT_CONFIG_SYSTEM", "/dev/null"},
                               {"GIT_CONFIG_NOSYSTEM", "1"}};

Status injection_needs_egress(const IsolationSpec& spec, const std::string& why) {
  if (spec.egress.inject.empty()) return {};
  std::vector<std::string> names;
  for (const auto& r : spec.egress.inject)
    if (std::find(names.begin(), names.end(), r.secret) == names.end()) names.push_back(r.secret);
  return fail(
      "the secrets {} are added by the egress proxy, which this unit's phases would not go "
      "through ({}); run them sandboxed with sandbox: {{network: allowlist}}, or remove their "
      "secrets: rules",
      fmt::join(names, ", "), why);
}

std::vector<std::string> unit_env(const UnitPaths& paths, const std::string& unit_id,
                                  const std::string& phase, const Isolator& iso,
                                  const std::vector<std::string>& owner_names,
                                  const std::string& prompt_file, const EnvPairs& profile) {
  // The profile first: what awaywork sets below wins over it (the config refuses those names,
  // and an isolator's extras such as the proxy variables must not be overridden either).
  EnvPairs set = profile;
  EnvPairs own = {
      {"HOME", paths.home},       {"TMPDIR", paths.tmp},
      {"AWAYWORK_UNIT", unit_id}, {"AWAYWORK_OUTPUTS", paths.outputs},
      {"AWAYWORK_PHASE", phase},
  };
  set.insert(set.end(), own.begin(), own.end());
  set.insert(set.end(), kPhaseGitEnv.begin(), kPhaseGitEnv.end());
  if (!prompt_file.empty()) set.emplace_back("AWAYWORK_PROMPT_FILE", prompt_file);
  for (auto& kv : iso.extra_env()) set.push_back(kv);
  return build_env(environ, owner_names, set);
}

}  // namespace aw
