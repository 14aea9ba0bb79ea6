#include "proc/cgroup_delegate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "base/fs.h"

namespace aw {

namespace {

constexpr const char* kSelf = "awaywork.self";

bool write_small(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// This process's v2 group ("/user.slice/.../x.scope"), from its "0::" line.
std::string own_group() {
  std::string text = read_or_empty("/proc/self/cgroup");
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (line.rfind("0::", 0) == 0) return line.substr(3);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return "";
}

bool xattr_says_delegated(const std::string& dir) {
  for (const char* name : {"user.delegate", "trusted.delegate"}) {
    char v[8] = {};
    ssize_t n = ::getxattr(dir.c_str(), name, v, sizeof v - 1);
    if (n > 0 && v[0] == '1') return true;
  }
  return false;
}

// The user manager's word that the unit we are in has Delegate=yes and owns our group: systemd
// 252 marks the groups the system manager delegates (user@UID.service) with the xattr, but not the
// scopes a user manager makes with Delegate=yes (`systemd-run --user --scope -p Delegate=yes`,
// seen in the systemd session test). Asking about a unit is not asking for one.
bool user_manager_says_delegated(const std::string& group) {
  size_t dot = group.rfind('.');
  std::string type = dot == std::string::npos ? "" : group.substr(dot + 1);
  if (type != "scope" && type != "service") return false;
  sd_bus* bus = nullptr;
  if (sd_bus_open_user(&bus) < 0) return false;
  sd_bus_error err = SD_BUS_ERROR_NULL;
  sd_bus_message* reply = nullptr;
  const char* unit = nullptr;
  bool delegated = false;
  if (sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                         "org.freedesktop.systemd1.Manager", "GetUnitByPID", &err, &reply, "u",
                         static_cast<uint32_t>(::getpid())) >= 0 &&
      sd_bus_message_read(reply, "o", &unit) >= 0) {
    std::string iface =
        "org.freedesktop.systemd1." + std::string(type == "scope" ? "Scope" : "Service");
    int yes = 0;
    char* cgroup = nullptr;
    if (sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1", unit, iface.c_str(),
                                    "Delegate", &err, 'b', &yes) >= 0 &&
        yes &&
        sd_bus_get_property_string(bus, "org.freedesktop.systemd1", unit, iface.c_str(),
                                   "ControlGroup", &err, &cgroup) >= 0)
      delegated = cgroup && group == cgroup;
    std::free(cgroup);
  }
  sd_bus_error_free(&err);
  sd_bus_message_unref(reply);
  sd_bus_flush_close_unref(bus);
  return delegated;
}

// dir is ours to make groups in: delegated to us (marked so, or known to be: the root of our
// cgroup namespace, a scope we just asked for with Delegate=yes) and writable.
bool usable(const std::string& dir, bool known_delegated) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  // systemd in hybrid mode marks the name=systemd v1 group, not the unified one: ownership then.
  if (!known_delegated && !xattr_says_delegated(dir)) return false;
  if (known_delegated && st.st_uid != ::geteuid()) return false;
  return ::access(dir.c_str(), W_OK) == 0 && ::access((dir + "/cgroup.procs").c_str(), W_OK) == 0;
}

// Case 1 on the group we are in now: base is our group, or its parent when we already moved
// into base/awaywork.self.
std::optional<DelegatedCgroup> own_delegated(const std::string& mount, bool asked,
                                             std::string* why) {
  std::string group = own_group();
  if (group.empty()) {
    if (why) *why = "this process has no cgroup v2 group (/proc/self/cgroup has no 0:: line)";
    return std::nullopt;
  }
  std::string rel = group;
  bool moved = rel.size() > std::strlen(kSelf) &&
               rel.compare(rel.size() - std::strlen(kSelf), std::string::npos, kSelf) == 0;
  if (moved) rel = rel.substr(0, rel.size() - std::strlen(kSelf) - 1);
  std::string base = mount + (rel == "/" ? "" : rel);
  // Already in awaywork.self: only a delegated group was ever given one.
  bool known = asked || moved || rel == "/" || rel.empty();
  bool ok = usable(base, known);
  if (!ok && !known && user_manager_says_delegated(rel)) ok = usable(base, true);
  if (!ok) {
    if (why) *why = fmt::format("the owner's cgroup {} is not delegated to them", rel);
    return std::nullopt;
  }
  if (!moved) {
    std::string self = base + "/" + kSelf;
    if (::mkdir(self.c_str(), 0755) != 0 && errno != EEXIST) {
      if (why) *why = fmt::format("mkdir {}: {}", self, std::strerror(errno));
      return std::nullopt;
    }
    if (!write_small(self + "/cgroup.procs", std::to_string(::getpid()))) {
      if (why) *why = fmt::format("move awaywork into {}: {}", self, std::strerror(errno));
      return std::nullopt;
    }
  }
  enable_controllers(base);
  std::string scope = fmt::format("/awaywork-{}.scope", ::getpid());
  if (rel.size() > scope.size() && rel.compare(rel.size() - scope.size(), scope.size(), scope) == 0)
    return DelegatedCgroup{base, fmt::format("the systemd user scope {} (Delegate=yes, asked over "
                                             "D-Bus)",
                                             rel)};
  return DelegatedCgroup{base, fmt::format("the owner's delegated cgroup {}", rel)};
}

// Case 2: StartTransientUnit on the user manager, then wait until this process is in the scope.
std::optional<std::string> start_scope(std::string* why) {
  sd_bus* bus = nullptr;
  int r = sd_bus_open_user(&bus);
  if (r < 0) {
    if (why)
      *why = fmt::format("no systemd user manager on the session bus ({})", std::strerror(-r));
    return std::nullopt;
  }
  std::string name = fmt::format("awaywork-{}.scope", ::getpid());
  sd_bus_error err = SD_BUS_ERROR_NULL;
  sd_bus_message* reply = nullptr;
  r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                         "org.freedesktop.systemd1.Manager", "StartTransientUnit", &err, &reply,
                         "ssa(sv)a(sa(sv))", name.c_str(), "fail", 3, "PIDs", "au", 1,
                         static_cast<uint32_t>(::getpid()), "Delegate", "b", 1, "Description", "s",
                         "awaywork units", 0);
  std::string error = r < 0 ? (err.message ? err.message : std::strerror(-r)) : "";
  sd_bus_error_free(&err);
  sd_bus_message_unref(reply);
  sd_bus_flush_close_unref(bus);
  if (r < 0) {
    if (why) *why = fmt::format("the systemd user manager refused the scope {}: {}", name, error);
    return std::nullopt;
  }
  // The job moves us; systemd-run waits for JobRemoved, here the move itself is what counts.
  for (int i = 0; i < 500; ++i) {
    if (own_group().find("/" + name) != std::string::npos) return name;
    timespec ts{0, 10 * 1000 * 1000};
    ::nanosleep(&ts, nullptr);
  }
  if (why) *why = fmt::format("the scope {} was started but awaywork was not moved into it", name);
  return std::nullopt;
}

}  // namespace

bool has_word(std::string_view text, std::string_view word) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find_first_of(" \n", at);
    if (end == std::string_view::npos) end = text.size();
    if (text.substr(at, end - at) == word) return true;
    at = end + 1;
  }
  return false;
}

void enable_controllers(const std::string& dir) {
  std::string offered = read_or_empty(dir + "/cgroup.controllers");
  for (const char* c : {"+memory", "+pids", "+cpu"})
    if (has_word(offered, c + 1)) (void)write_small(dir + "/cgroup.subtree_control", c);
}

std::optional<DelegatedCgroup> delegated_cgroup(const std::string& mount, bool ask_systemd,
                                                std::string* why) {
  std::string why1, why2;
  if (auto d = own_delegated(mount, false, &why1)) return d;
  if (!ask_systemd) {
    if (why) *why = why1;
    return std::nullopt;
  }
  auto scope = start_scope(&why2);
  if (scope) {
    if (auto d = own_delegated(mount, true, &why2)) return d;
  }
  if (why) *why = why1 + "; " + why2;
  return std::nullopt;
}

}  // namespace aw
