// Finding and reading the config file. The file is the owner's own (unlike everything the agent
// touches), so a symlinked config from a dotfiles manager is followed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/fs.h"
#include "config/config.h"
#include "config/host_env.h"
#include "config/paths.h"

namespace aw {
namespace {

// A config is a few kilobytes; this refuses a wrong path (a log, a device) quickly.
constexpr size_t kMaxConfigBytes = 1u << 20;

// Reads path (following a link: the config is the owner's own file, often from a dotfiles
// manager); errno_out is set to the open error so that the caller can tell "missing" apart.
Result<std::string> read_config(const std::string& path, int& errno_out) {
  ReadProblem p;
  auto text = read_file(path, ReadOptions{kMaxConfigBytes, true}, &p);
  errno_out = p.what == ReadFailure::open ? p.err : 0;
  switch (p.what) {
    case ReadFailure::none:
      return text;
    case ReadFailure::open:
      return fail("{}: cannot open: {}", path, errno_text(p.err));
    case ReadFailure::not_regular:
      return fail("{}: not a regular file; point --config at a YAML file", path);
    case ReadFailure::too_large:
      return fail("{}: larger than {} bytes; is this the right file?", path, kMaxConfigBytes);
    case ReadFailure::read:
      return fail("{}: cannot read: {}", path, errno_text(p.err));
  }
  return text;
}

// Where awaywork runs may overrule the file's isolation (the image, a hosted runner).
Result<Config> with_host(Result<Config> cfg) {
  if (cfg) force_isolation(*cfg, host_kind(std::getenv));
  return cfg;
}

}  // namespace

std::string default_config_path() {
  std::string dir = default_config_dir();
  return dir.empty() ? "" : dir + "/config.yml";
}

Result<Config> load_config(const std::string& path, bool explicit_path) {
  int err = 0;
  auto text = read_config(path, err);
  if (!text && err == ENOENT && !explicit_path) return with_host(parse_config("", ""));
  if (!text && err == ENOENT)
    return fail(
        "{}: no such file; create it (see examples/config.yml) or leave out --config to "
        "use {}",
        path, default_config_path());
  if (!text) return tl::unexpected(text.error());
  return with_host(parse_config(*text, path));
}

Result<Config> load_given_config(const std::string& given) {
  return load_config(given.empty() ? default_config_path() : given, !given.empty());
}

}  // namespace aw
