#include "plugin/disable.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "base/fs.h"
#include "plugin/approval.h"

namespace aw {

namespace {

std::string switch_path(const std::string& plugins_dir, const std::string& name) {
  return plugins_dir + "/" + name + "/disabled";
}

}  // namespace

Result<bool> plugin_disabled(const std::string& plugins_dir, const std::string& name) {
  std::string path = switch_path(plugins_dir, name);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  return fail("plugin {}: cannot tell whether it is disabled ({}: {})", name, path,
              errno_text(errno));
}

Status set_plugin_disabled(const std::string& plugins_dir, const std::string& name, bool disabled) {
  std::string path = switch_path(plugins_dir, name);
  if (!disabled) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return fail("plugin {}: remove {}: {}", name, path, errno_text(errno));
    return {};
  }
  AW_CHECK(with_context(make_dirs(plugins_dir + "/" + name, 0700),
                        fmt::format("plugin {}: its state folder", name)));
  return with_context(
      replace_file(path, "disabled by awaywork plugin disable; awaywork plugin enable undoes it\n",
                   0600),
      fmt::format("plugin {}: record that it is disabled", name));
}

Status set_declared_disabled(const PluginsConfig& plugins, const std::string& plugins_dir,
                             const std::string& name, bool disabled) {
  AW_CHECK(declared_plugin(plugins, name));
  return set_plugin_disabled(plugins_dir, name, disabled);
}

std::vector<const PluginConfig*> enabled_plugins(const std::vector<const PluginConfig*>& list,
                                                 const std::string& plugins_dir,
                                                 std::vector<std::string>* disabled) {
  std::vector<const PluginConfig*> out;
  for (const PluginConfig* p : list) {
    auto off = plugin_disabled(plugins_dir, p->name);
    if (off && *off) {
      if (disabled) disabled->push_back(p->name);
      continue;
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace aw
