#include "config/paths.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "config/config.h"

namespace aw {

namespace fs = std::filesystem;

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h == '/') return h;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* out = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &out) == 0 && out && out->pw_dir)
    return out->pw_dir;
  return "";
}

static std::string xdg_or_home(const char* var, const char* fallback) {
  if (const char* x = std::getenv(var); x && *x == '/') return (fs::path(x) / "awaywork").string();
  std::string home = home_dir();
  if (home.empty()) return "";
  return (fs::path(home) / fallback / "awaywork").string();
}

std::string default_state_dir() {
  return xdg_or_home("XDG_STATE_HOME", ".local/state");
}

std::string state_dir_of(const Config& cfg) {
  return cfg.state_dir.empty() ? default_state_dir() : cfg.state_dir;
}

std::string default_config_dir() {
  return xdg_or_home("XDG_CONFIG_HOME", ".config");
}

static std::string normal(const fs::path& p) {
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<std::string> expand_path(const std::string& raw, const std::string& base_dir,
                                const std::string& home) {
  if (raw.empty()) return fail("empty path; write a path or remove the entry");
  for (char c : raw)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return fail("'{}' contains a control character; remove it", raw);
  if (raw == "~" || raw.starts_with("~/")) {
    if (home.empty())
      return fail("'{}' starts with ~ but HOME is not set; write the full path", raw);
    return normal(fs::path(home) / raw.substr(raw.size() > 1 ? 2 : 1));
  }
  if (raw[0] == '~')
    return fail("'{}': only ~/ (your own home) is expanded, not ~user; write the full path", raw);
  if (raw[0] == '/') return normal(raw);
  return normal(fs::path(base_dir) / raw);
}

}  // namespace aw
