// A node plugin's argv with Node's permission model on (node_runtime.h).
#include "plugin/node_runtime.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "base/inert.h"
#include "plugin/program_path.h"
#include "plugin/sandbox_env.h"
#include "proc/capture.h"

namespace aw {

namespace {

// Digits at `at`, moved past; -1 when there are none (or too many to be a version part).
int number_at(const std::string& s, size_t& at) {
  size_t start = at;
  int n = 0;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9' && at - start < 6)
    n = n * 10 + (s[at++] - '0');
  return at == start ? -1 : n;
}

std::string fix_text() {
  return fmt::format(
      "fix: install Node.js {} or later where the sandbox sees it (/usr/local/bin or /usr/bin; "
      "e.g. from npm's node package: npm install -g node@22), or write \"runtime\": \"exec\" with "
      "an executable entry starting #!/usr/bin/node (the OS sandbox alone, without Node's "
      "permission model)",
      kNodeMinMajor);
}

}  // namespace

Result<NodeVersion> parse_node_version(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  size_t at = 0;
  if (t.empty() || t[0] != 'v') return fail("'{}' is not a Node.js version", inert(t));
  ++at;
  NodeVersion v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && (at >= t.size() || t[at++] != '.'))
      return fail("'{}' is not a Node.js version", inert(t));
    *parts[i] = number_at(t, at);
    if (*parts[i] < 0) return fail("'{}' is not a Node.js version", inert(t));
  }
  if (at != t.size()) return fail("'{}' is not a Node.js version", inert(t));
  return v;
}

const char* node_permission_flag(const NodeVersion& v) {
  bool stable = v.major > 23 || (v.major == 23 && v.minor >= 5) || (v.major == 22 && v.minor >= 13);
  return stable ? "--permission" : "--experimental-permission";
}

Result<NodeProgram> find_plugin_node(const std::string& plugin_name) {
  auto where = find_program("node", kSandboxPath);
  if (!where)
    return fail(
        "plugin {}: \"runtime\": \"node\" needs Node.js {} or later, and there is no node "
        "in {}; {}",
        plugin_name, kNodeMinMajor, kSandboxPath, fix_text());
  std::string path = plugin_program_realpath(*where);
  if (path.empty() || !plugin_program_is_system(path))
    return fail(
        "plugin {}: node {} is really {}, outside the system's folders the sandbox sees; {}",
        plugin_name, *where, path.empty() ? "missing" : path, fix_text());
  // Asked once per path: a call must not pay for a second node start. Keyed by the real path, so
  // a node upgraded in place under a new name is asked again.
  static std::mutex mu;
  static std::map<std::string, NodeVersion> known;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = known.find(path); it != known.end()) return NodeProgram{path, it->second};
  }
  AW_TRY(Captured got,
         with_context(capture({.argv = {path, "--version"},
                               .env = {std::string("PATH=") + kSandboxPath},
                               .cwd = "/",
                               .stdin_data = ""}),
                      fmt::format("plugin {}: ask {} its version", plugin_name, path)));
  if (got.exit_code != 0)
    return fail("plugin {}: {} --version exited {}; {}", plugin_name, path, got.exit_code,
                fix_text());
  AW_TRY(NodeVersion v, with_context(parse_node_version(got.out),
                                     fmt::format("plugin {}: {} --version", plugin_name, path)));
  if (v.major < kNodeMinMajor)
    return fail(
        "plugin {}: \"runtime\": \"node\" needs Node.js {} or later (its permission model, "
        "--experimental-permission, which awaywork adds inside the sandbox), and {} is "
        "v{}.{}.{}; {}",
        plugin_name, kNodeMinMajor, path, v.major, v.minor, v.patch, fix_text());
  std::lock_guard<std::mutex> lock(mu);
  known[path] = v;
  return NodeProgram{path, v};
}

Result<std::vector<std::string>> node_plugin_argv(const PluginConfig& p, const std::string& data) {
  if (p.command.empty()) return fail("plugin {} has no command", p.name);
  AW_TRY(NodeProgram node, find_plugin_node(p.name));
  std::string entry = plugin_program_realpath(p.command[0]);
  if (entry.empty())
    return fail("plugin {}: its entry {} does not exist; fix plugins.{}.command", p.name,
                p.command[0], p.name);
  std::string folder = entry.substr(0, entry.rfind('/'));
  std::vector<std::string> argv = {node.path, node_permission_flag(node.version)};
  auto allow = [&](const char* what, const std::string& path) -> Status {
    // Node 20 splits a flag's value at commas: such a path would grant something else.
    if (path.empty() || path.find(',') != std::string::npos)
      return fail(
          "plugin {}: Node's permission flags cannot carry the path '{}' (a comma); "
          "rename it",
          p.name, inert(path));
    argv.push_back(fmt::format("--allow-fs-{}={}", what, path));
    return {};
  };
  AW_CHECK(allow("read", folder));
  for (const auto& r : p.read) AW_CHECK(allow("read", r));
  AW_CHECK(allow("read", data));
  AW_CHECK(allow("write", data));
  // Its write: folders, as the sandbox binds them (real paths, plugin/write_paths.h).
  for (const auto& w : p.write) {
    AW_CHECK(allow("read", w));
    AW_CHECK(allow("write", w));
  }
  AW_CHECK(allow("read", "/tmp"));  // the sandbox's private /tmp, empty at each call
  AW_CHECK(allow("write", "/tmp"));
  argv.push_back(entry);
  argv.insert(argv.end(), p.command.begin() + 1, p.command.end());
  return argv;
}

}  // namespace aw
