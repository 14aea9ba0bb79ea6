#include "plugin/write_paths.h"

#include <sys/stat.h>

#include <cerrno>

#include <fmt/format.h>

#include "base/fs.h"
#include "plugin/program_path.h"

namespace aw {

namespace {

bool inside(const std::string& path, const std::string& root) {
  return !root.empty() && (path == root || path.starts_with(root == "/" ? root : root + "/"));
}

// A folder of the owner's that a write: path may be neither, nor inside, nor above.
struct Guarded {
  std::string real;  // its real path, or as given when it does not exist yet; "" = none
  std::string what;  // "awaywork's state folder (its database, ...)"
};

std::string real_or_empty(const std::string& path) {
  return path.empty() ? "" : plugin_program_realpath(path);
}

// A state folder not made yet (at approval, before any call) is still guarded where it will be:
// a write: folder above it would hold it once it is made.
std::string real_or_given(std::string path) {
  if (path.empty()) return "";
  std::string real = plugin_program_realpath(path);
  if (!real.empty()) return real;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

Result<std::vector<std::string>> plugin_write_paths(const PluginConfig& p,
                                                    const SandboxPaths& base) {
  std::vector<std::string> out;
  if (p.write.empty()) return out;
  std::string key = fmt::format("plugins.{}.write", p.name);
  std::string fix_remove = fmt::format(
      "fix: remove it from {} (and from its manifest) and give the plugin a folder of its own, "
      "e.g. ~/notes (its data folder, its $HOME, is always writable)",
      key);
  std::vector<Guarded> guarded;
  guarded.push_back({real_or_given(base.state_dir),
                     "awaywork's state folder (its database, the approvals, every plugin's data "
                     "and switch)"});
  guarded.push_back({real_or_empty(base.state_dir.empty() ? "" : base.state_dir + "/awaywork.db"),
                     "awaywork's database"});
  guarded.push_back({real_or_given(base.config_dir), "awaywork's config folder"});
  for (const auto& f : base.secret_files)
    guarded.push_back({real_or_empty(f), "awaywork's config or secret store"});
  std::string program = p.command.empty() ? "" : real_or_empty(p.command[0]);
  if (!program.empty() && !plugin_program_is_system(program))
    guarded.push_back(
        {program.substr(0, program.rfind('/')), "the plugin's own folder (the code you approved)"});
  std::string home = real_or_empty(base.owner_home);
  for (const std::string& path : p.write) {
    if (path.empty() || path[0] != '/')
      return fail(
          "plugin {}: {}: '{}' is not an absolute path; fix: write it in full, e.g. {}: "
          "[~/notes]",
          p.name, key, path, key);
    std::string real = plugin_program_realpath(path);
    if (real.empty()) {
      int err = errno;
      if (err == ENOENT || err == ENOTDIR)
        return fail(
            "plugin {}: {}: {} does not exist; fix: create it (mkdir -p {}) or remove it "
            "from {}",
            p.name, key, path, path, key);
      return fail(
          "plugin {}: {}: {} cannot be reached ({}); fix: make it a folder you can open, "
          "or remove it from {}",
          p.name, key, path, errno_text(err), key);
    }
    struct stat st {};
    if (::stat(real.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return fail(
          "plugin {}: {}: {} is not a folder; fix: name the folder the plugin writes in "
          "(a file is lent with its folder)",
          p.name, key, path);
    std::string named = real == path ? path : fmt::format("{} (really {})", path, real);
    if (real == "/" || (!home.empty() && inside(home, real)))
      return fail("plugin {}: {}: {} would let the plugin write all of / or your home; {}", p.name,
                  key, named, fix_remove);
    for (const Guarded& g : guarded) {
      if (g.real.empty()) continue;
      if (inside(real, g.real))
        return fail("plugin {}: {}: {} is {}{}; {}", p.name, key, named,
                    real == g.real ? "" : "inside ", g.what, fix_remove);
      if (inside(g.real, real))
        return fail("plugin {}: {}: {} holds {} ({}); {}", p.name, key, named, g.what, g.real,
                    fix_remove);
    }
    out.push_back(real);
  }
  return out;
}

}  // namespace aw
