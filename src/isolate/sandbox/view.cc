// What of the host a view includes besides the system trees (host side, before any phase runs):
// the toolchains the phases' programs resolve into, the owner's `sandbox.readable` paths, and the
// files only root may read, which are masked.
//
// Root-only files are masked rather than the phase run as another id. Mapping a root owner's
// phase to an unprivileged id inside its namespace would leave the clone, HOME and outputs
// (owned by root) unwritable: it needs the chown round-trip isolation user does, or idmapped
// mounts of every writable folder, which not every file system has. A root-owned clone read by a
// non-root awaywork side is also what git refuses (safe.directory). So the phase keeps root's
// uid (without any capability), and what only root's uid could open is masked: the named
// secrets of /etc always, and, for a root owner, every file or folder of /etc, /opt and
// /usr/local not readable by others (found by a scan: /etc holds about 1,500 entries, a
// millisecond or two). The rest of /usr is not scanned (about 180,000 entries, seconds when
// cold): package-managed files there hold no secrets of the machine. An unprivileged owner
// (and the worker of isolation user) needs none of this: the kernel refuses them those files.
#include "isolate/sandbox/view.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "isolate/sandbox/view_paths.h"
#include "proc/capture.h"

namespace aw {

const std::vector<std::string>& system_trees() {
  // /usr and the usr-merge links (/bin, /sbin, /lib*), /etc (less its secrets), /opt, the Nix
  // store, and the CPU topology toolchains read to size their thread pools (nothing else of /sys).
  static const std::vector<std::string> trees = {"/usr",
                                                 "/bin",
                                                 "/sbin",
                                                 "/lib",
                                                 "/lib32",
                                                 "/lib64",
                                                 "/libx32",
                                                 "/etc",
                                                 "/opt",
                                                 "/nix/store",
                                                 "/sys/devices/system/cpu"};
  return trees;
}

namespace sandbox {
namespace {

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

// A home folder: /root, or a folder directly under /home.
bool is_home(const std::string& path) {
  return path == "/root" || dir_of(path) == "/home";
}

// Lending this would lend far more than one install: "/", a top-level folder, a home, or a
// home's folders that hold every tool's state (~/.local, ~/.config, ~/.cache).
bool too_broad(const std::string& root, const std::string& owner_home) {
  if (root == "/" || dir_of(root) == "/" || is_home(root) || root == owner_home) return true;
  if (!owner_home.empty() && inside(owner_home, root)) return true;
  std::string parent = dir_of(root), name = base_of(root);
  bool in_home = is_home(parent) || parent == owner_home;
  return in_home && (name == ".local" || name == ".config" || name == ".cache");
}

// Where a program in dir was installed: an npm prefix (the folder holding node_modules), the
// parent of a bin, sbin or shims folder (nvm's versions/node/vX, a venv, ~/.cargo, ~/.pyenv),
// else dir itself. Too broad a root gives way to dir (and ~/.local to its bin and lib).
std::vector<std::string> install_roots(const std::string& dir, const std::string& owner_home) {
  std::string root = dir;
  size_t nm = (dir + "/").find("/node_modules/");
  if (nm != std::string::npos) {
    root = dir.substr(0, nm);
    if (base_of(root) == "lib") root = dir_of(root);  // <prefix>/lib/node_modules
  } else if (std::string n = base_of(dir); n == "bin" || n == "sbin" || n == "shims") {
    root = dir_of(dir);
  }
  if (too_broad(root, owner_home)) {
    if (base_of(root) == ".local" && !too_broad(dir, owner_home))
      return {root + "/bin", root + "/lib"};
    return too_broad(dir, owner_home) ? std::vector<std::string>{} : std::vector<std::string>{dir};
  }
  std::vector<std::string> out = {root};
  if (base_of(root) == ".cargo") out.push_back(dir_of(root) + "/.rustup");  // rustup's proxies
  return out;
}

bool private_place(const std::string& path) {
  for (const char* dir : {"/tmp", "/run", "/dev/shm"})
    if (inside(path, dir)) return true;
  return false;
}

// Already in the view: under a system tree, the unit's own folders, or something lent.
bool in_view(const std::string& real, const SandboxPlan& plan) {
  for (const auto& t : plan.system)
    if (inside(real, resolved(t))) return true;
  for (const auto& w : plan.writable)
    if (inside(real, w)) return true;
  for (const auto& r : plan.readable)
    if (inside(real, r.source)) return true;
  return false;
}

bool in_hidden(const std::string& path, const SandboxPlan& plan) {
  for (const auto& h : plan.hidden)
    if (inside(path, h)) return true;
  return false;
}

void lend_folder(const std::string& target, const std::string& why, SandboxPlan& plan) {
  std::string source = resolved(target);
  if (!is_dir(source) || in_view(source, plan)) return;
  if (in_hidden(source, plan) || in_hidden(target, plan))
    return;  // nothing re-exposes a hidden place
  // A folder lent before inside this one (an earlier PATH entry) is covered by it now.
  std::erase_if(plan.readable, [&](const SandboxPlan::ReadOnly& r) {
    return r.why.rfind("toolchain", 0) == 0 && inside(r.target, target);
  });
  plan.readable.push_back({source, target, why});
}

}  // namespace

void lend_install(const std::string& given, const std::string& why, SandboxPlan& plan) {
  if (given.empty() || given[0] != '/') return;
  std::string real = real_path(given);
  if (real.empty()) return;
  if (in_hidden(real, plan) || in_hidden(given, plan)) return;
  if (private_place(given) || private_place(real)) {
    // The sandbox's /tmp, /run and /dev/shm are private: the program alone is lent.
    for (const auto& r : plan.readable)
      if (r.target == given) return;
    plan.readable.push_back({real, given, why});
    return;
  }
  bool lent = false;
  for (const auto& p : {given, real})
    for (const auto& root : install_roots(dir_of(p), plan.owner_home)) {
      size_t before = plan.readable.size();
      lend_folder(root, why, plan);
      lent = lent || plan.readable.size() > before || in_view(resolved(root), plan);
    }
  // A program straight in a home (~/tool): only the file.
  if (!lent && !in_view(real, plan)) plan.readable.push_back({real, given, why});
}

void add_toolchains(const SandboxPaths& unit, SandboxPlan& plan) {
  std::string path = unit.path_value.empty() ? "/usr/local/bin:/usr/bin:/bin" : unit.path_value;
  for (const auto& prog : unit.programs) {
    std::string given = prog;
    if (!prog.empty() && prog.find('/') == std::string::npos) {
      auto found = find_program(prog, path);
      given = found ? *found : std::string();
    }
    lend_install(given, "toolchain: " + base_of(prog), plan);
  }
  // PATH entries too: a check may run `sh -c 'npm test'`, whose npm only its PATH finds.
  for (size_t start = 0; start <= path.size();) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    start = end + 1;
    auto norm = normalize(dir);
    if (dir.empty() || dir[0] != '/' || !norm || private_place(*norm) || !is_dir(*norm)) continue;
    for (const auto& root : install_roots(*norm, plan.owner_home))
      lend_folder(root, "toolchain: PATH " + *norm, plan);
  }
}

Status add_readable(const SandboxConfig& config, const SandboxPaths& unit, SandboxPlan& plan) {
  for (const auto& r : config.readable) {
    AW_TRY(auto p, with_context(expand(r, unit.owner_home), "sandbox readable path"));
    std::string source = resolved(p);
    for (const auto& h : plan.hidden)
      if (inside(source, h) || inside(p, h))
        return fail(
            "sandbox readable path {} is inside the hidden path {}: hidden wins; remove it from "
            "`readable:` (or the hidden path from `hidden:`)",
            r, h);
    if (source == "/" || is_home(source) ||
        (!unit.owner_home.empty() && resolved(unit.owner_home) == source))
      return fail(
          "sandbox readable path {} would lend a whole home or the root; name the folders the work "
          "needs",
          r);
    struct stat st {};
    if (::stat(source.c_str(), &st) != 0) continue;  // nothing to bind (yet): doctor shows it
    plan.readable.push_back({source, p, "readable:"});
  }
  return {};
}

namespace {

// The secrets /etc holds on a Debian-like system, masked whatever their mode says.
const std::vector<std::string>& etc_secrets() {
  static const std::vector<std::string> names = {
      "/etc/shadow",          "/etc/shadow-",
      "/etc/gshadow",         "/etc/gshadow-",
      "/etc/sudoers",         "/etc/sudoers.d",
      "/etc/ssl/private",     "/etc/security/opasswd",
      "/etc/krb5.keytab",     "/etc/wireguard",
      "/etc/ipsec.secrets",   "/etc/ppp/chap-secrets",
      "/etc/ppp/pap-secrets", "/etc/NetworkManager/system-connections",
      "/etc/libvirt/secrets"};
  return names;
}

// Depth-first over dir (links not followed), adding what others may not read; a folder others
// cannot list or enter is added whole. Bounded, so that a huge /opt cannot stall a unit's start.
void scan(const std::string& dir, int depth, size_t& budget, std::vector<std::string>& out) {
  if (depth > 24 || budget == 0) return;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || budget == 0) continue;
    --budget;
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode)) continue;
    std::string path = dir + "/" + name;
    if (S_ISDIR(st.st_mode)) {
      if ((st.st_mode & (S_IROTH | S_IXOTH)) != (S_IROTH | S_IXOTH))
        out.push_back(path);
      else
        scan(path, depth + 1, budget, out);
    } else if (!(st.st_mode & S_IROTH)) {
      out.push_back(path);
    }
  }
  ::closedir(d);
}

}  // namespace

std::vector<std::string> root_only_files(bool root_owner) {
  std::vector<std::string> out;
  struct stat st {};
  for (const auto& p : etc_secrets())
    if (::lstat(p.c_str(), &st) == 0) out.push_back(p);
  if (DIR* d = ::opendir("/etc/ssh")) {  // host keys: ssh_host_*_key (the .pub files are public)
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.rfind("ssh_host_", 0) == 0 && n.size() > 4 && n.compare(n.size() - 4, 4, "_key") == 0)
        out.push_back("/etc/ssh/" + n);
    }
    ::closedir(d);
  }
  if (root_owner) {
    size_t budget = 200000;
    for (const char* tree : {"/etc", "/opt", "/usr/local"}) scan(tree, 0, budget, out);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace sandbox

std::vector<std::string> home_in_view(const SandboxPlan& plan, const std::string& owner_home) {
  using sandbox::inside;
  auto under_a_home = [&](const std::string& p) {
    return inside(p, "/root") || inside(p, "/home") ||
           (!owner_home.empty() && inside(p, owner_home));
  };
  auto tilde = [&](const std::string& p) {
    // append, not `"~" + substr`: the latter trips GCC 12's -Wrestrict false positive at -O3.
    if (!owner_home.empty() && inside(p, owner_home))
      return std::string("~").append(p, owner_home.size());
    return p;
  };
  std::vector<std::string> out;
  for (const auto& r : plan.readable)
    if (under_a_home(r.target) || under_a_home(r.source))
      out.push_back(fmt::format("{} ({})", tilde(r.target), r.why));
  bool own = std::any_of(plan.writable.begin(), plan.writable.end(), under_a_home);
  if (own) out.push_back("the unit's own folders (clone, HOME, TMPDIR, outputs), read-write");
  return out;
}

}  // namespace aw
