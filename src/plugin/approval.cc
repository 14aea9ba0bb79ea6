#include "plugin/approval.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/json_write.h"
#include "base/sha256.h"
#include "config/paths.h"
#include "plugin/disable.h"
#include "plugin/manifest.h"
#include "plugin/program_path.h"
#include "plugin/write_paths.h"

namespace aw {

namespace {

constexpr size_t kMaxFiles = 10000;
constexpr uint64_t kMaxBytes = 256ull << 20;

struct Walk {
  std::map<std::string, std::string>& files;
  uint64_t bytes = 0;
};

// One entry: a regular file by mode and hash, a symlink by its target (never followed), a folder
// by its mode and then its entries; anything else (a socket, a device) by its type alone.
Status add_entry(const std::string& path, const std::string& rel, Walk& w);

Status add_folder(const std::string& path, const std::string& rel, Walk& w) {
  DIR* d = ::opendir(path.c_str());
  if (!d) return fail("read the folder {}: {}", path, errno_text(errno));
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names)
    AW_CHECK(add_entry(path + "/" + n, rel.empty() ? n : rel + "/" + n, w));
  return {};
}

Status add_entry(const std::string& path, const std::string& rel, Walk& w) {
  if (w.files.size() >= kMaxFiles)
    return fail("its folder holds more than {} files; give the plugin a folder of its own",
                kMaxFiles);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fail("read {}: {}", path, errno_text(errno));
  std::string mode = fmt::format("{:04o}", st.st_mode & 07777);
  if (S_ISLNK(st.st_mode)) {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    if (n < 0) return fail("read the link {}: {}", path, errno_text(errno));
    w.files[rel] = "-> " + std::string(buf, static_cast<size_t>(n));
  } else if (S_ISDIR(st.st_mode)) {
    if (!rel.empty()) w.files[rel + "/"] = "dir " + mode;
    AW_CHECK(add_folder(path, rel, w));
  } else if (S_ISREG(st.st_mode)) {
    w.bytes += static_cast<uint64_t>(st.st_size);
    if (w.bytes > kMaxBytes)
      return fail("its folder holds more than {} MiB; give the plugin a folder of its own",
                  kMaxBytes >> 20);
    AW_TRY(std::string bytes, read_file(path, kMaxBytes));
    w.files[rel] = mode + " " + sha256_hex(bytes);
  } else {
    w.files[rel] = "special " + mode;
  }
  return {};
}

// Every declared key, so that a widened permission (a host, a path, a secret, a higher limit) is
// a change like a changed byte of code. write: only when declared, so that a record made before
// write: existed still matches a plugin that declares none.
nlohmann::json permissions_of(const PluginConfig& p) {
  nlohmann::json j = {{"kind", to_string(p.kind)},
                      {"command", p.command},
                      {"net", p.net},
                      {"read", p.read},
                      {"secrets", p.secrets},
                      {"env", p.env},
                      {"timeout_ms", p.timeout_ms},
                      {"memory_bytes", p.memory_bytes},
                      {"processes", p.processes}};
  if (!p.write.empty()) j["write"] = p.write;
  return j;
}

std::string record_path(const PluginConfig& p, const std::string& plugins_dir) {
  return plugins_dir + "/" + p.name + "/approval.json";
}

std::string short_value(const nlohmann::json& v) {
  std::string s = json_text(v);
  return s.size() > 120 ? s.substr(0, 117) + "..." : s;
}

}  // namespace

const char* to_string(ApprovalState s) {
  switch (s) {
    case ApprovalState::current:
      return "approved";
    case ApprovalState::unapproved:
      return "not approved";
    case ApprovalState::changed:
      return "changed since approval";
  }
  return "?";
}

Result<PluginPrint> plugin_print(const PluginConfig& p) {
  if (p.command.empty()) return fail("plugin {} has no command", p.name);
  char buf[PATH_MAX];
  if (!::realpath(p.command[0].c_str(), buf))
    return fail("plugin {}: its program {} does not exist; fix plugins.{}.command", p.name,
                p.command[0], p.name);
  std::string program = buf;
  PluginPrint out;
  Walk w{out.files};
  if (plugin_program_is_system(program)) {
    out.folder = program;
    AW_CHECK(with_context(add_entry(program, program.substr(program.rfind('/') + 1), w),
                          fmt::format("plugin {}", p.name)));
  } else {
    out.folder = program.substr(0, program.rfind('/'));
    // Never a walk of a whole home or of / (the call refuses to lend those too).
    const char* home = std::getenv("HOME");
    char hbuf[PATH_MAX];
    std::string real_home = home && ::realpath(home, hbuf) ? std::string(hbuf) : "";
    if (out.folder.empty() || out.folder == "/home" || out.folder == "/root" ||
        out.folder == real_home)
      return fail(
          "plugin {}: its program is straight in {}, which would make all of it the plugin's "
          "code; put the plugin in a folder of its own, e.g. ~/plugins/{}/",
          p.name, out.folder.empty() ? "/" : out.folder, p.name);
    AW_CHECK(with_context(add_entry(out.folder, "", w), fmt::format("plugin {}", p.name)));
  }
  out.permissions = permissions_of(p);
  nlohmann::json all{{"files", out.files}, {"permissions", out.permissions}};
  out.sha256 = sha256_hex(json_text(all));
  return out;
}

namespace {

// Where a manifest's "~/" points: the owner's, as the config's own "~" (config/paths).
std::string owner_home() {
  const char* home = std::getenv("HOME");
  return home ? home : "";
}

// What a write: folder is checked against at approval: the owner's home, the state folder
// (plugins_dir's parent) and awaywork's config folder; each call checks again with the unit's own
// (plugin_host).
SandboxPaths approval_base(const std::string& plugins_dir) {
  SandboxPaths sp;
  sp.owner_home = owner_home();
  auto slash = plugins_dir.rfind('/');
  sp.state_dir = slash == std::string::npos || slash == 0 ? "" : plugins_dir.substr(0, slash);
  sp.config_dir = default_config_dir();
  return sp;
}

}  // namespace

Result<PluginPrint> approve_plugin(const PluginConfig& p, const std::string& plugins_dir) {
  // Never an approval of a grant its own manifest does not ask for: the owner fixes one or the
  // other first.
  AW_CHECK(check_manifest(p, owner_home()));
  // Nor of a write: folder no call could lend (awaywork's state, config, the home itself).
  AW_CHECK(plugin_write_paths(p, approval_base(plugins_dir)));
  AW_TRY(PluginPrint print, plugin_print(p));
  std::string dir = plugins_dir + "/" + p.name;
  AW_CHECK(with_context(make_dirs(dir, 0700), fmt::format("plugin {}: its state folder", p.name)));
  nlohmann::json record{{"name", p.name},
                        {"folder", print.folder},
                        {"sha256", print.sha256},
                        {"files", print.files},
                        {"permissions", print.permissions}};
  AW_CHECK(
      with_context(replace_file(record_path(p, plugins_dir), json_text(record, 2) + "\n", 0600),
                   fmt::format("plugin {}: record its approval", p.name)));
  return print;
}

Result<Approval> plugin_approval(const PluginConfig& p, const std::string& plugins_dir) {
  AW_TRY(PluginPrint now, plugin_print(p));
  Approval a;
  std::string path = record_path(p, plugins_dir);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return fail("plugin {}: read {}: {}", p.name, path, errno_text(errno));
    return a;  // never approved
  }
  AW_TRY(std::string text,
         with_context(read_file(path, 64u << 20), fmt::format("plugin {}: its approval", p.name)));
  auto rec = nlohmann::json::parse(text, nullptr, false);
  if (rec.is_discarded() || !rec.is_object() || !rec.contains("sha256") ||
      !rec["sha256"].is_string() || !rec.contains("files") || !rec["files"].is_object() ||
      !rec.contains("permissions") || !rec["permissions"].is_object())
    return fail(
        "plugin {}: its approval {} is damaged; approve it again with awaywork plugin "
        "approve {}",
        p.name, path, p.name);
  a.approved_sha256 = rec["sha256"].get<std::string>();
  if (a.approved_sha256 == now.sha256) {
    a.state = ApprovalState::current;
    return a;
  }
  a.state = ApprovalState::changed;
  std::map<std::string, std::string> then;
  for (const auto& [k, v] : rec["files"].items())
    then[k] = v.is_string() ? v.get<std::string>() : "";
  for (const auto& [k, v] : now.files) {
    auto it = then.find(k);
    if (it == then.end())
      a.changes.push_back(fmt::format("file {} added", k));
    else if (it->second != v)
      a.changes.push_back(fmt::format("file {} changed", k));
  }
  for (const auto& [k, v] : then)
    if (!now.files.contains(k)) a.changes.push_back(fmt::format("file {} removed", k));
  const nlohmann::json& was = rec["permissions"];
  for (const auto& [k, v] : now.permissions.items())
    if (!was.contains(k) || was[k] != v)
      a.changes.push_back(fmt::format("{}: was {}, now {}", k,
                                      was.contains(k) ? short_value(was[k]) : "unset",
                                      short_value(v)));
  if (a.changes.empty()) a.changes.push_back("its folder moved or its record differs");
  return a;
}

std::string approval_refusal(const PluginConfig& p, const Approval& a) {
  if (a.state == ApprovalState::unapproved)
    return fmt::format(
        "plugin {} did not run: it is not approved; read its code and permissions, then run "
        "awaywork plugin approve {}",
        p.name, p.name);
  constexpr size_t kShown = 10;
  std::string what;
  for (size_t i = 0; i < a.changes.size() && i < kShown; ++i)
    what += (i ? "; " : "") + a.changes[i];
  if (a.changes.size() > kShown) what += fmt::format("; and {} more", a.changes.size() - kShown);
  return fmt::format(
      "plugin {} did not run: it changed since you approved it ({}); review the change, then run "
      "awaywork plugin approve {}",
      p.name, what, p.name);
}

std::vector<PluginStatus> plugin_statuses(const PluginsConfig& plugins,
                                          const std::string& plugins_dir) {
  std::vector<PluginStatus> out;
  for (const auto& [name, p] : plugins.plugins) {
    PluginStatus st;
    st.name = name;
    st.kind = to_string(p.kind);
    st.permissions = permissions_of(p);
    // The limits a call applies: the config's, lowered by the manifest's (bounded_limits).
    if (auto m = manifest_of(p, owner_home()); m && *m) {
      PluginConfig run = bounded_limits(p, **m);
      st.permissions["timeout_ms"] = run.timeout_ms;
      st.permissions["memory_bytes"] = run.memory_bytes;
      st.permissions["processes"] = run.processes;
    }
    if (auto a = plugin_approval(p, plugins_dir))
      st.approval = *a;
    else
      st.error = a.error().message;
    if (auto m = check_manifest(p, owner_home()); !m && st.error.empty())
      st.error = m.error().message;
    if (auto off = plugin_disabled(plugins_dir, name))
      st.disabled = *off;
    else if (st.error.empty())
      st.error = off.error().message;
    out.push_back(std::move(st));
  }
  return out;
}

Result<const PluginConfig*> declared_plugin(const PluginsConfig& plugins, const std::string& name) {
  auto it = plugins.plugins.find(name);
  if (it != plugins.plugins.end()) return &it->second;
  std::string names;
  for (const auto& [n, p] : plugins.plugins) names += (names.empty() ? "" : ", ") + n;
  return fail("no plugin {} is declared in the config's plugins: section{}", name,
              names.empty() ? std::string(" (it declares none; docs/plugins.md)")
                            : fmt::format(" (it declares {})", names));
}

Result<std::vector<const PluginConfig*>> approval_targets(const PluginsConfig& plugins,
                                                          const std::string& target) {
  std::vector<const PluginConfig*> out;
  auto named = plugins.plugins.find(target);
  if (named != plugins.plugins.end()) return std::vector<const PluginConfig*>{&named->second};
  // The declared plugins and their folders, for the errors.
  std::string declared;
  for (const auto& [n, p] : plugins.plugins) {
    std::string program = p.command.empty() ? "" : plugin_program_realpath(p.command[0]);
    std::string where = program.empty() || plugin_program_is_system(program)
                            ? (p.command.empty() ? std::string("no command") : p.command[0])
                            : program.substr(0, program.rfind('/'));
    declared += fmt::format("{}{} in {}", declared.empty() ? "" : ", ", n, where);
  }
  std::string listed = declared.empty()
                           ? std::string("the config declares no plugin under plugins:")
                           : fmt::format("the config declares {}", declared);
  char buf[PATH_MAX];
  if (!::realpath(target.c_str(), buf)) {
    int err = errno;
    // A bare word is most likely a mistyped name: say which names are declared first.
    if (err == ENOENT && target.find('/') == std::string::npos) {
      auto named_error = declared_plugin(plugins, target);
      return fail(
          "{}; fix: give a declared name, or the plugin's folder (the folder of its command:), "
          "e.g. awaywork plugin approve ./{}",
          named_error ? std::string("no such plugin") : named_error.error().message, target);
    }
    if (err == ENOENT || err == ENOTDIR)
      return fail(
          "{} is neither a plugin declared under plugins: nor a folder that exists ({}); fix: give "
          "the plugin's name or its folder (the folder of its command:), e.g. awaywork plugin "
          "approve ~/plugins/notify",
          target, listed);
    return fail(
        "{} cannot be read ({}); fix: give a folder you can read (the folder of the plugin's "
        "command:) or the plugin's name ({})",
        target, errno_text(err), listed);
  }
  std::string real = buf;
  struct stat st {};
  bool folder = ::stat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (folder && ::access(real.c_str(), R_OK | X_OK) != 0)
    return fail(
        "{} cannot be read ({}); fix: give a folder you can read (the folder of the plugin's "
        "command:) or the plugin's name ({})",
        target, errno_text(errno), listed);
  for (const auto& [n, p] : plugins.plugins) {
    if (p.command.empty()) continue;
    std::string program = plugin_program_realpath(p.command[0]);
    if (program.empty()) continue;
    // The folder approval hashes (plugin_print): the program's, or a system program alone.
    std::string covered =
        plugin_program_is_system(program) ? program : program.substr(0, program.rfind('/'));
    if (real == covered || real == program) out.push_back(&p);
  }
  if (out.empty())
    return fail(
        "{}{} is the folder of no plugin declared under plugins: ({}); fix: declare it first, "
        "e.g. plugins: {{NAME: {{kind: notifier, command: [{}/ENTRY]}}}} with its manifest's "
        "entry, then run awaywork plugin approve {}",
        target, real == target ? "" : fmt::format(" ({})", real), listed,
        folder ? real : real.substr(0, real.rfind('/')), target);
  return out;
}

Result<PluginPrint> approve_declared(const PluginsConfig& plugins, const std::string& plugins_dir,
                                     const std::string& name) {
  AW_TRY(const PluginConfig* p, declared_plugin(plugins, name));
  return approve_plugin(*p, plugins_dir);
}

}  // namespace aw
