#include "unit/isolator.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "base/fs.h"

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

Result<std::unique_ptr<Isolator>> make_isolator(const Config& cfg, const Target& target,
                                                const std::string& unit_id) {
  switch (cfg.isolation) {
    case Isolation::none:
      return make_none_isolator(cfg, target, unit_id);
    case Isolation::user:
      return make_user_isolator(cfg, target, unit_id);
    case Isolation::container:
      return make_container_isolator(cfg, target, unit_id);
  }
  return fail("unknown isolation");
}

}  // namespace aw
