// The hardened invocation of git (DESIGN.md section 5). Every git that awaywork runs goes through
// here: environment built from nothing, every config source but the git dir's own switched off,
// and the options that could run a program named by a config or attribute pinned on the command
// line (command-line config wins over the repository's).
#include <string_view>

#include <algorithm>

#include "git/git_internal.h"

namespace aw {
namespace gitx {

namespace {

// -c options placed before the subcommand. Command-line config overrides whatever the git dir's
// config says, so even a repository config we did not write cannot name a program to run.
constexpr std::string_view kHardening[] = {
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "diff.external=",
    "core.sshCommand=/bin/false",
    "protocol.ext.allow=never",
    // awaywork's git only ever talks to local repositories.
    "protocol.allow=never",
    "protocol.file.allow=always",
    "core.attributesFile=/dev/null",
    "core.askPass=/bin/false",
    "core.excludesFile=/dev/null",
    "core.untrackedCache=false",
    "credential.helper=",
    "gc.auto=0",
    "maintenance.auto=false",
    "core.pager=cat",
    "color.ui=false",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "core.splitIndex=false",
    // The output check parses paths exactly as git prints them by default (quoted, a/ b/).
    "core.quotePath=true",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "receive.autogc=false",
};

std::vector<std::string> environment(const GitCall& call, const std::vector<std::string>& extra) {
  std::vector<std::string> env = {
      "PATH=/usr/bin:/bin",
      "HOME=/nonexistent",
      "XDG_CONFIG_HOME=/nonexistent",
      "GIT_CONFIG_NOSYSTEM=1",
      "GIT_CONFIG_GLOBAL=/dev/null",
      "GIT_TERMINAL_PROMPT=0",
      "GIT_ASKPASS=/bin/false",
      "GIT_OPTIONAL_LOCKS=0",
      "GIT_NO_REPLACE_OBJECTS=1",
      "GIT_PAGER=cat",
      "LC_ALL=C",
  };
  if (!call.index_file.empty()) env.push_back("GIT_INDEX_FILE=" + call.index_file);
  if (!call.object_dir.empty()) env.push_back("GIT_OBJECT_DIRECTORY=" + call.object_dir);
  // An extra entry replaces the default of the same name (e.g. GIT_ASKPASS): with two entries
  // of one name, which one a program sees depends on how it reads its environment.
  for (const auto& e : extra) {
    std::string name = e.substr(0, e.find('=') + 1);
    std::erase_if(env, [&](const std::string& d) { return d.starts_with(name); });
    env.push_back(e);
  }
  return env;
}

std::vector<std::string> argv_of(const GitCall& call) {
  std::vector<std::string> argv = {"/usr/bin/git"};
  if (!call.git_dir.empty()) argv.push_back("--git-dir=" + call.git_dir);
  if (!call.work_tree.empty()) argv.push_back("--work-tree=" + call.work_tree);
  for (auto opt : kHardening) {
    argv.push_back("-c");
    argv.emplace_back(opt);
  }
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  return argv;
}

std::string describe(const GitCall& call) {
  std::string s = "git";
  for (size_t i = 0; i < call.args.size() && i < 4; ++i) s += " " + call.args[i];
  if (call.args.size() > 4) s += " ...";
  return s;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

GitCall at(const std::string& git_dir, std::vector<std::string> args) {
  GitCall call;
  call.git_dir = git_dir;
  call.args = std::move(args);
  return call;
}

Result<Captured> run(const GitCall& call, const std::vector<std::string>& extra_env) {
  // cwd is never the work tree or the caller's folder: nothing is discovered from cwd.
  CaptureSpec spec{.argv = argv_of(call),
                   .env = environment(call, extra_env),
                   .cwd = std::string(1, '/'),
                   .stdin_data = call.stdin_data};
  return with_context(capture(spec), describe(call));
}

Result<std::string> run_ok(const GitCall& call, const std::vector<std::string>& extra_env) {
  AW_TRY(Captured c, run(call, extra_env));
  if (c.exit_code != 0)
    return fail("{} exited {}: {}", describe(call), c.exit_code, trimmed(c.err));
  return std::move(c.out);
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<std::string> split_z(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\0', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool valid_ref_name(const std::string& ref) {
  if (ref.empty() || ref == "@" || ref.front() == '/' || ref.back() == '/' || ref.back() == '.' ||
      ref.find('/') == std::string::npos)
    return false;
  for (const char* bad : {"..", "@{", "//", "/."})
    if (ref.find(bad) != std::string::npos) return false;
  if (ref.front() == '.') return false;
  for (unsigned char c : ref)
    if (c < 0x20 || c == 0x7f ||
        std::string_view(" ~^:?*[\\").find(static_cast<char>(c)) != std::string_view::npos)
      return false;
  for (size_t start = 0; start < ref.size();) {
    size_t end = std::min(ref.find('/', start), ref.size());
    if (std::string_view(ref).substr(start, end - start).ends_with(".lock")) return false;
    start = end + 1;
  }
  return true;
}

bool is_object_id(const std::string& s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace gitx

Result<Captured> git(const GitCall& call) {
  return gitx::run(call, {});
}

Result<std::string> git_ok(const GitCall& call) {
  return gitx::run_ok(call, {});
}

}  // namespace aw
