#include "plugin/manifest.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "config/duration.h"
#include "config/size.h"
#include "config/validate.h"
#include "plugin/program_path.h"
#include "plugin/protocol.h"

namespace aw {

namespace {

// A manifest is a few hundred bytes; more is not one.
constexpr size_t kManifestCap = 64u << 10;

const std::vector<std::string> kTopKeys = {"name",    "version",     "kinds",       "entry",
                                           "runtime", "permissions", "description", "limits"};
const std::vector<std::string> kLimitKeys = {"timeout", "memory", "processes"};
const std::vector<std::string> kPermissionKeys = {"net", "read", "write", "secrets", "env"};

// Checking one manifest: every error names the file and the key.
struct Reader {
  const std::string& file;
  const nlohmann::json& j;

  Error bad(std::string_view key, std::string_view what, std::string_view fix) const {
    return Error{fmt::format("{}: \"{}\": {}; fix: {}", file, key, what, fix)};
  }
  Result<std::string> text(std::string_view key, std::string_view fix) const {
    auto it = j.find(key);
    if (it == j.end()) return tl::make_unexpected(bad(key, "missing", fix));
    if (!it->is_string() || it->get<std::string>().empty())
      return tl::make_unexpected(bad(key, "must be a non-empty string", fix));
    return it->get<std::string>();
  }
  // An array of non-empty strings; absent = none. Under "permissions", errors name
  // "permissions.KEY".
  static Result<std::vector<std::string>> texts(const Reader& r, const nlohmann::json& obj,
                                                std::string_view key, std::string_view fix) {
    std::vector<std::string> out;
    auto it = obj.find(key);
    if (it == obj.end()) return out;
    std::string named = &obj == &r.j ? std::string(key) : fmt::format("permissions.{}", key);
    if (!it->is_array()) return tl::make_unexpected(r.bad(named, "must be a list of strings", fix));
    for (const auto& v : *it) {
      if (!v.is_string() || v.get<std::string>().empty())
        return tl::make_unexpected(r.bad(named, "must be a list of non-empty strings", fix));
      out.push_back(v.get<std::string>());
    }
    return out;
  }
};

Status unknown_keys(const Reader& r, const nlohmann::json& obj, const std::vector<std::string>& ok,
                    std::string_view where) {
  for (const auto& [k, v] : obj.items())
    if (std::find(ok.begin(), ok.end(), k) == ok.end()) {
      std::string known;
      for (const auto& o : ok) known += (known.empty() ? "" : ", ") + o;
      return tl::make_unexpected(r.bad(fmt::format("{}{}", where, plugin_words(k)),
                                       "is not a manifest key",
                                       fmt::format("remove it; the keys are {}", known)));
    }
  return {};
}

Status read_kinds(const Reader& r, PluginManifest& m) {
  constexpr std::string_view fix = "write e.g. \"kinds\": [\"check\"] (notifier, check or source)";
  AW_TRY(std::vector<std::string> kinds, Reader::texts(r, r.j, "kinds", fix));
  if (!r.j.contains("kinds") || kinds.empty())
    return tl::make_unexpected(r.bad("kinds", "must name at least one kind", fix));
  for (const std::string& k : kinds) {
    if (k == "notifier")
      m.kinds.push_back(PluginKind::notifier);
    else if (k == "check")
      m.kinds.push_back(PluginKind::check);
    else if (k == "source")
      m.kinds.push_back(PluginKind::source);
    else
      return tl::make_unexpected(
          r.bad("kinds", fmt::format("'{}' is not a kind", plugin_words(k)), fix));
  }
  return {};
}

Status read_permissions(const Reader& r, const std::string& home, PluginManifest& m) {
  auto it = r.j.find("permissions");
  if (it == r.j.end()) return {};  // asks for nothing
  if (!it->is_object())
    return tl::make_unexpected(
        r.bad("permissions", "must be an object",
              "write e.g. \"permissions\": {\"net\": [\"hooks.example.com\"]}"));
  const nlohmann::json& p = *it;
  AW_CHECK(unknown_keys(r, p, kPermissionKeys, "permissions."));
  AW_TRY(auto net, Reader::texts(r, p, "net", "write host names, e.g. [\"hooks.example.com\"]"));
  for (const std::string& h : net) {
    auto d = check_domain(h);
    if (!d)
      return tl::make_unexpected(r.bad("permissions.net", d.error().message,
                                       "write host names, e.g. [\"hooks.example.com\"]"));
    m.net.push_back(*d);
  }
  AW_TRY(auto read, Reader::texts(r, p, "read", "write absolute paths, e.g. [\"/etc/notify\"]"));
  for (std::string path : read) {
    if (path.starts_with("~/") && !home.empty()) path = home + path.substr(1);
    if (path.empty() || path[0] != '/' || path.find("/../") != std::string::npos ||
        path.ends_with("/.."))
      return tl::make_unexpected(
          r.bad("permissions.read", fmt::format("'{}' is not an absolute path", plugin_words(path)),
                "write absolute paths (or ~/...), e.g. [\"/etc/notify\"]"));
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    m.read.push_back(path);
  }
  // Folders it writes besides its data folder: absolute here; that each exists and is none of
  // the owner's home, awaywork's state, config or database is checked where it is used
  // (plugin/write_paths.h), on this machine.
  constexpr std::string_view write_fix = "write absolute folders (or ~/...), e.g. [\"/srv/notes\"]";
  AW_TRY(auto write, Reader::texts(r, p, "write", write_fix));
  for (std::string path : write) {
    if (path.starts_with("~/") && !home.empty()) path = home + path.substr(1);
    if (path.empty() || path[0] != '/' || path.find("/../") != std::string::npos ||
        path.ends_with("/.."))
      return tl::make_unexpected(
          r.bad("permissions.write",
                fmt::format("'{}' is not an absolute path", plugin_words(path)), write_fix));
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path == "/" || (!home.empty() && (path == home || home.starts_with(path + "/"))))
      return tl::make_unexpected(r.bad(
          "permissions.write",
          fmt::format("'{}' would make all of / or the owner's home writable", plugin_words(path)),
          write_fix));
    m.write.push_back(path);
  }
  for (const char* key : {"secrets", "env"}) {
    std::string fix = fmt::format("write variable names, e.g. [\"NOTIFY_TOKEN\"]");
    AW_TRY(auto names, Reader::texts(r, p, key, fix));
    for (const std::string& n : names)
      if (auto ok = check_profile_name(n); !ok)
        return tl::make_unexpected(
            r.bad(fmt::format("permissions.{}", key), ok.error().message, fix));
    (std::string_view(key) == "secrets" ? m.secrets : m.env) = names;
  }
  return {};
}

// "limits": {"timeout": "10s", "memory": "128M", "processes": 8}, each within the config's own
// bounds for the same key (config/parse_plugin_code.cc).
Status read_limits(const Reader& r, PluginManifest& m) {
  auto it = r.j.find("limits");
  if (it == r.j.end()) return {};
  constexpr std::string_view fix =
      "write e.g. \"limits\": {\"timeout\": \"10s\", \"memory\": \"128M\", \"processes\": 8}";
  if (!it->is_object()) return tl::make_unexpected(r.bad("limits", "must be an object", fix));
  const nlohmann::json& l = *it;
  AW_CHECK(unknown_keys(r, l, kLimitKeys, "limits."));
  if (auto t = l.find("timeout"); t != l.end()) {
    if (!t->is_string())
      return tl::make_unexpected(r.bad("limits.timeout", "must be a string", "write e.g. \"10s\""));
    auto ms = parse_duration_ms(t->get<std::string>(), {1000, 600 * 1000, "1s", "10m"});
    if (!ms)
      return tl::make_unexpected(r.bad(
          "limits.timeout",
          fmt::format("'{}' is not a duration from 1s to 10m", plugin_words(t->get<std::string>())),
          "write a whole number then ms, s or m, e.g. \"10s\""));
    m.timeout_ms = *ms;
  }
  if (auto s = l.find("memory"); s != l.end()) {
    constexpr std::string_view mfix = "write a size from 16M to 16G, e.g. \"256M\"";
    if (!s->is_string())
      return tl::make_unexpected(r.bad("limits.memory", "must be a string", mfix));
    auto n = parse_size(s->get<std::string>());
    if (!n || *n < (16ull << 20) || *n > (16ull << 30))
      return tl::make_unexpected(r.bad(
          "limits.memory",
          fmt::format("'{}' is not a size from 16M to 16G", plugin_words(s->get<std::string>())),
          mfix));
    m.memory_bytes = *n;
  }
  if (auto n = l.find("processes"); n != l.end()) {
    if (!n->is_number_integer() || n->get<int64_t>() < 1 || n->get<int64_t>() > 4096)
      return tl::make_unexpected(
          r.bad("limits.processes", "must be a whole number from 1 to 4096", "write e.g. 32"));
    m.processes = static_cast<int>(n->get<int64_t>());
  }
  return {};
}

// The first of `granted` not in `asked`, or "".
std::string not_asked(const std::vector<std::string>& granted,
                      const std::vector<std::string>& asked) {
  for (const std::string& g : granted)
    if (std::find(asked.begin(), asked.end(), g) == asked.end()) return g;
  return "";
}

}  // namespace

Result<PluginManifest> load_manifest(const std::string& folder, const std::string& home) {
  PluginManifest m;
  m.file = folder + "/" + kManifestName;
  AW_TRY(std::string bytes,
         with_context(read_file(m.file, kManifestCap),
                      fmt::format("{}: read it (at most {} KiB)", m.file, kManifestCap >> 10)));
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail(
        "{}: not a JSON object; fix: write e.g. {{\"name\": \"license-check\", "
        "\"version\": \"1.0.0\", \"kinds\": [\"check\"], \"entry\": \"license-check\", "
        "\"runtime\": \"exec\"}} (docs/plugins/manifest.schema.json)",
        m.file);
  Reader r{m.file, j};
  AW_CHECK(unknown_keys(r, j, kTopKeys, ""));
  AW_TRY(m.name, r.text("name", "write the plugin's name, e.g. \"name\": \"license-check\""));
  if (auto ok = check_entry_name(m.name); !ok)
    return tl::make_unexpected(r.bad("name", ok.error().message, "e.g. \"license-check\""));
  AW_TRY(m.version, r.text("version", "write e.g. \"version\": \"1.0.0\""));
  static const std::regex kSemver(R"(\d{1,9}\.\d{1,9}\.\d{1,9}(-[0-9A-Za-z.-]{1,64})?)");
  // Length first: libstdc++'s regex recurses per character.
  if (m.version.size() > 100 || !std::regex_match(m.version, kSemver))
    return tl::make_unexpected(
        r.bad("version", fmt::format("'{}' is not MAJOR.MINOR.PATCH", plugin_words(m.version)),
              "write e.g. \"version\": \"1.0.0\""));
  AW_CHECK(read_kinds(r, m));
  constexpr std::string_view entry_fix =
      "write the program's path inside the plugin's folder, e.g. \"entry\": \"license-check\"";
  AW_TRY(m.entry, r.text("entry", entry_fix));
  if (m.entry[0] == '/' || m.entry == ".." || m.entry.starts_with("../") ||
      m.entry.find("/../") != std::string::npos || m.entry.ends_with("/.."))
    return tl::make_unexpected(r.bad(
        "entry", fmt::format("'{}' leaves the plugin's folder", plugin_words(m.entry)), entry_fix));
  struct stat st {};
  std::string program = folder + "/" + m.entry;
  // A node entry is a script node reads (plugin/node_runtime.h): it need not be executable.
  bool node = j.contains("runtime") && j["runtime"] == "node";
  if (::stat(program.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || (!node && !(st.st_mode & 0111)))
    return tl::make_unexpected(
        r.bad("entry",
              fmt::format("'{}' is not {} file in {}", plugin_words(m.entry),
                          node ? "a" : "an executable", folder),
              node ? std::string(entry_fix) : fmt::format("{}, and chmod +x it", entry_fix)));
  AW_TRY(m.runtime, r.text("runtime", "write \"runtime\": \"exec\" or \"node\""));
  if (m.runtime != "exec" && m.runtime != "node")
    return tl::make_unexpected(r.bad("runtime",
                                     fmt::format("'{}' is not a runtime", plugin_words(m.runtime)),
                                     "write \"runtime\": \"exec\" or \"node\""));
  if (j.contains("description") && !j["description"].is_string())
    return tl::make_unexpected(r.bad("description", "must be a string", "write one line"));
  AW_CHECK(read_permissions(r, home, m));
  AW_CHECK(read_limits(r, m));
  return m;
}

Result<std::optional<PluginManifest>> manifest_of(const PluginConfig& p, const std::string& home) {
  if (p.command.empty()) return std::optional<PluginManifest>{};
  std::string program = plugin_program_realpath(p.command[0]);
  if (program.empty() || plugin_program_is_system(program)) return std::optional<PluginManifest>{};
  std::string folder = program.substr(0, program.rfind('/'));
  struct stat st {};
  std::string file = folder + "/" + kManifestName;
  if (::lstat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<PluginManifest>{};
    return fail("plugin {}: read {}: {}", p.name, file, errno_text(errno));
  }
  AW_TRY(PluginManifest m,
         with_context(load_manifest(folder, home), fmt::format("plugin {}'s manifest", p.name)));
  return std::optional<PluginManifest>(std::move(m));
}

Status check_grant(const PluginConfig& p, const PluginManifest& m) {
  std::string review = fmt::format("its manifest {} does not ask for it", m.file);
  if (std::find(m.kinds.begin(), m.kinds.end(), p.kind) == m.kinds.end()) {
    std::string kinds;
    for (PluginKind k : m.kinds) kinds += (kinds.empty() ? "" : " or ") + std::string(to_string(k));
    return fail(
        "plugin {}: plugins.{}.kind is {}, and its manifest {} makes it a {} plugin; fix: "
        "write kind: {}",
        p.name, p.name, to_string(p.kind), m.file, kinds, to_string(m.kinds[0]));
  }
  std::string program = plugin_program_realpath(p.command[0]);
  std::string folder = program.substr(0, program.rfind('/'));
  std::string entry = plugin_program_realpath(folder + "/" + m.entry);
  if (entry.empty() || entry != program)
    return fail(
        "plugin {}: plugins.{}.command runs {}, and its manifest {} names the entry {}; "
        "fix: write command: [{}]",
        p.name, p.name, p.command[0], m.file, m.entry, folder + "/" + m.entry);
  struct Grant {
    const char* key;
    const std::vector<std::string>& granted;
    const std::vector<std::string>& asked;
  };
  for (const Grant& g :
       {Grant{"net", p.net, m.net}, Grant{"read", p.read, m.read}, Grant{"write", p.write, m.write},
        Grant{"secrets", p.secrets, m.secrets}, Grant{"env", p.env, m.env}}) {
    std::string extra = not_asked(g.granted, g.asked);
    if (!extra.empty())
      return fail(
          "plugin {}: plugins.{}.{} grants {}, and {}; fix: remove it from plugins.{}.{} "
          "(or, if the plugin needs it, from its author: a manifest that asks for it)",
          p.name, p.name, g.key, extra, review, p.name, g.key);
  }
  return {};
}

PluginConfig bounded_limits(const PluginConfig& p, const PluginManifest& m) {
  PluginConfig out = p;
  if (m.timeout_ms) out.timeout_ms = std::min(out.timeout_ms, *m.timeout_ms);
  if (m.memory_bytes) out.memory_bytes = std::min(out.memory_bytes, *m.memory_bytes);
  if (m.processes) out.processes = std::min(out.processes, *m.processes);
  return out;
}

Status check_manifest(const PluginConfig& p, const std::string& home) {
  AW_TRY(std::optional<PluginManifest> m, manifest_of(p, home));
  if (!m) return {};
  return check_grant(p, *m);
}

}  // namespace aw
