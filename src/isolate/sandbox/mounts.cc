// Child side of the mount namespace: the filesystem view, built with pivot_root.
//
// Like bwrap, we first pivot into a private tmpfs so that the host's tree is at /oldroot and the
// view is assembled at /newroot: a fresh tmpfs holding the system trees bound read-only, the
// unit's folders, the lent paths, a private /tmp and /run, a fresh /proc and a minimal /dev; the
// folders leading to a bound path are empty and read-only (in the root, and in the private /tmp
// too), and the whole root is read-only once built. Then
// /newroot becomes / and /oldroot is detached. Every path is
// resolved with openat2(RESOLVE_NO_SYMLINKS) and mounted by fd (open_tree/move_mount), so a link
// planted by an earlier phase can never redirect a bind or a mask.
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <limits.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "base/gcc_quirks.h"
#include "base/unique_fd.h"
#include "isolate/sandbox/steps.h"

namespace aw::sandbox {
namespace {

using Fd = UniqueFd;

// Open an absolute path inside root_fd's tree without following any link.
int open_beneath(int root_fd, const std::string& abs, int flags) {
  struct open_how how {};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  std::string rel = abs.substr(
      abs.find_first_not_of('/') == std::string::npos ? abs.size() : abs.find_first_not_of('/'));
  AW_NO_WRESTRICT(if (rel.empty()) rel = ".";)  // base/gcc_quirks.h
  return static_cast<int>(::syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how));
}

int set_attr(int fd, const char* path, unsigned flags, uint64_t set, uint64_t clear = 0) {
  struct mount_attr attr {};
  attr.attr_set = set;
  attr.attr_clr = clear;
  return ::mount_setattr(fd, path, flags, &attr, sizeof attr);
}

// Attach a detached mount (from open_tree or fsmount) onto the object open at target.
int attach(int mnt_fd, int target_fd) {
  return ::move_mount(mnt_fd, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

// A fresh detached tmpfs (rw until set_attr makes it read-only).
int new_tmpfs(const char* mode) {
  Fd fs(::fsopen("tmpfs", FSOPEN_CLOEXEC));
  if (!fs) return -1;
  if (::fsconfig(fs.fd, FSCONFIG_SET_STRING, "mode", mode, 0) != 0) return -1;
  if (::fsconfig(fs.fd, FSCONFIG_SET_STRING, "size", "16m", 0) != 0) return -1;
  if (::fsconfig(fs.fd, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0) return -1;
  return ::fsmount(fs.fd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

bool under(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

// mkdir -p of rel inside dir_fd (a tmpfs we own), never through a link.
bool make_path(int dir_fd, const std::string& rel) {
  size_t pos = 0;
  while (pos < rel.size()) {
    size_t end = rel.find('/', pos);
    if (end == std::string::npos) end = rel.size();
    std::string part = rel.substr(0, end);
    if (!part.empty() && ::mkdirat(dir_fd, part.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
    pos = end + 1;
  }
  return true;
}

class ViewBuilder {
 public:
  explicit ViewBuilder(const SandboxPlan& plan) : plan_(plan) {}

  std::string build() {
    std::string err = enter_staging();
    if (err.empty()) err = plan_.enabled("view") ? bind_system_trees() : bind_host_root();
    if (err.empty()) err = private_mounts();
    if (err.empty()) err = lent_binds();
    if (err.empty() && plan_.enabled("hidden")) err = hide_paths();
    if (err.empty() && plan_.enabled("rootonly")) err = mask_root_only();
    if (err.empty() && plan_.enabled("readonly")) err = seal_leading_folders();
    if (err.empty() && plan_.enabled("view") && plan_.enabled("readonly") &&
        set_attr(AT_FDCWD, "/newroot", 0,
                 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) != 0)
      err = fail("make read-only", "the view's root");
    if (err.empty()) err = enter_view();
    return err;
  }

 private:
  std::string fail(const char* what, const std::string& path) {
    return step_error("filesystem view", std::string(what) + " " + path, errno);
  }

  std::string enter_staging() {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      return fail("make-rprivate", "/");
    if (::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
      return fail("mount staging tmpfs on", "/tmp");
    if (::chdir("/tmp") != 0 || ::mkdir("newroot", 0755) != 0 || ::mkdir("oldroot", 0755) != 0)
      return fail("prepare", "staging");
    if (::syscall(SYS_pivot_root, ".", "oldroot") != 0) return fail("pivot_root into", "staging");
    if (::chdir("/") != 0) return fail("chdir", "/");
    return {};
  }

  // The host's tree, recursively, made read-only (and nosuid) in one call.
  std::string bind_host_root() {
    if (::mount("/oldroot", "/newroot", nullptr, MS_BIND | MS_REC, nullptr) != 0)
      return fail("rbind", "/");
    if (plan_.enabled("readonly") &&
        set_attr(AT_FDCWD, "/newroot", AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID) != 0)
      return fail("make read-only", "/");
    root_ = Fd(::open("/newroot", O_PATH | O_DIRECTORY | O_CLOEXEC));
    old_ = Fd(::open("/oldroot", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root_ || !old_) return fail("open", "/newroot");
    return {};
  }

  // The view from what the work needs: an empty tmpfs root, the system trees bound into it
  // read-only (a tree that is a link on the host, as usr-merged /bin, is made again as that link).
  std::string bind_system_trees() {
    if (::mkdir("/newroot", 0755) != 0 && errno != EEXIST) return fail("mkdir", "/newroot");
    if (::mount("tmpfs", "/newroot", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
      return fail("mount root tmpfs on", "/newroot");
    root_ = Fd(::open("/newroot", O_PATH | O_DIRECTORY | O_CLOEXEC));
    old_ = Fd(::open("/oldroot", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root_ || !old_) return fail("open", "/newroot");
    for (const auto& tree : plan_.system) {
      std::string rel = tree.substr(1);
      struct stat st {};
      if (::fstatat(old_.fd, rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // not here
      std::string parent = rel.substr(0, rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/'));
      if (!parent.empty() && !make_path(root_.fd, parent)) return fail("mount point for", tree);
      if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = ::readlinkat(old_.fd, rel.c_str(), target, sizeof target - 1);
        if (n < 0) return fail("read link", tree);
        target[n] = 0;
        if (::symlinkat(target, root_.fd, rel.c_str()) != 0 && errno != EEXIST)
          return fail("make link", tree);
        continue;
      }
      if (!S_ISDIR(st.st_mode)) continue;
      std::string err = bind_host(tree, plan_.enabled("readonly"));
      if (!err.empty()) return err;
    }
    return {};
  }

  // The host's folder at the same path in the view (recursively: /etc holds the engine's binds).
  std::string bind_host(const std::string& path, bool readonly) {
    Fd src(open_beneath(old_.fd, path, O_PATH | O_DIRECTORY));
    if (!src) return fail("open host folder", path);
    Fd tree(::open_tree(src.fd, "",
                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE));
    if (!tree) return fail("clone mount of", path);
    if (readonly && set_attr(tree.fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
                             MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) != 0)
      return fail("make read-only", path);
    if (!make_path(root_.fd, path.substr(1))) return fail("mount point for", path);
    Fd dst(open_beneath(root_.fd, path, O_PATH | O_DIRECTORY));
    if (!dst || attach(tree.fd, dst.fd) != 0) return fail("bind", path);
    return {};
  }

  // A private mount, or (with its protection off for a test) the host's folder at that path.
  std::string private_or_host(const char* path, const char* protection, const char* type,
                              unsigned long flags, const char* data) {
    if (plan_.enabled(protection)) {
      if (plan_.enabled("view") && !make_path(root_.fd, path + 1))
        return fail("mount point for", path);
      return mount_at(path, type, flags, data);
    }
    return plan_.enabled("view") ? bind_host(path, true) : std::string();
  }

  std::string mount_at(const std::string& path, const char* type, unsigned long flags,
                       const char* data) {
    std::string target = "/newroot" + path;
    if (::mount(type, target.c_str(), type, flags, data) != 0) return fail("mount on", path);
    return {};
  }

  std::string private_mounts() {
    std::string err = private_or_host("/tmp", "tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
    if (err.empty())
      err = private_or_host("/run", "run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m");
    if (err.empty())
      err = private_or_host("/proc", "pidns", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
    if (err.empty()) err = minimal_dev();
    return err;
  }

  std::string minimal_dev() {
    if (!make_path(root_.fd, "dev")) return fail("mount point for", "/dev");
    std::string err = mount_at("/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k");
    if (!err.empty()) return err;
    for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"}) {
      std::string target = std::string("/newroot/dev/") + node;
      int fd = ::open(target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
      if (fd < 0) return fail("create", target);
      ::close(fd);
      std::string source = std::string("/oldroot/dev/") + node;
      if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0)
        return fail("bind", source);
    }
    for (const char* dir : {"shm", "pts"})
      if (::mkdir((std::string("/newroot/dev/") + dir).c_str(), 0755) != 0)
        return fail("mkdir /dev/", dir);
    err = mount_at("/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
    if (err.empty())
      err = mount_at("/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                     "newinstance,ptmxmode=0666,mode=620");
    if (!err.empty()) return err;
    const char* links[][2] = {{"pts/ptmx", "ptmx"},
                              {"/proc/self/fd", "fd"},
                              {"/proc/self/fd/0", "stdin"},
                              {"/proc/self/fd/1", "stdout"},
                              {"/proc/self/fd/2", "stderr"}};
    for (auto& l : links)
      if (::symlink(l[0], (std::string("/newroot/dev/") + l[1]).c_str()) != 0)
        return fail("symlink /dev/", l[1]);
    if (set_attr(AT_FDCWD, "/newroot/dev", 0, MOUNT_ATTR_RDONLY) != 0)
      return fail("make read-only", "/dev");
    return {};
  }

  // The writable and the read-only binds, outer paths first, so that a clone below a lent folder
  // (or a lent file below a writable one) is bound over it and not hidden by it.
  std::string lent_binds() {
    std::vector<std::pair<std::string, const SandboxPlan::ReadOnly*>> all;
    for (const auto& w : plan_.writable) all.emplace_back(w, nullptr);
    for (const auto& r : plan_.readable) all.emplace_back(r.target, &r);
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [path, ro] : all) {
      std::string err = ro ? readonly_bind(*ro) : writable_bind(path);
      if (!err.empty()) return err;
    }
    return {};
  }

  // The clone, HOME, provider state and writable: paths, bound from the host read-write. A target
  // inside a private tmpfs (/tmp) is created first.
  std::string writable_bind(const std::string& path) {
    {
      Fd src(open_beneath(old_.fd, path, O_PATH | O_DIRECTORY));
      if (!src) return fail("open writable path (must be a real folder, not a link)", path);
      Fd tree(::open_tree(src.fd, "",
                          OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE));
      if (!tree) return fail("clone mount of", path);
      if (set_attr(tree.fd, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_RDONLY) != 0)
        return fail("make writable", path);
      Fd dst(open_beneath(root_.fd, path, O_PATH | O_DIRECTORY));
      if (!dst && errno == ENOENT) {
        make_path(root_.fd, path.substr(1));  // only succeeds inside a writable tmpfs
        dst = Fd(open_beneath(root_.fd, path, O_PATH | O_DIRECTORY));
      }
      if (!dst) return fail("open mount point", path);
      if (attach(tree.fd, dst.fd) != 0) return fail("bind", path);
    }
    return {};
  }

  // What awaywork lends read-only (SandboxPlan::readable). The mount point is created when
  // missing, which only succeeds inside a tmpfs (the view's root, /tmp); a missing folder in a
  // bound tree is made in a mirror of its parent (mask_missing).
  std::string readonly_bind(const SandboxPlan::ReadOnly& r) {
    {
      Fd src(open_beneath(old_.fd, r.source, O_PATH));
      if (!src) return fail("open read-only path", r.source);
      struct stat st {};
      if (::fstat(src.fd, &st) != 0) return fail("stat", r.source);
      bool dir = S_ISDIR(st.st_mode);
      Fd tree(::open_tree(src.fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH));
      if (!tree || set_attr(tree.fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID) != 0)
        return fail("clone read-only mount of", r.source);
      Fd dst(open_beneath(root_.fd, r.target, O_PATH));
      if (!dst && errno == ENOENT) {
        std::string parent = r.target.substr(0, r.target.rfind('/'));
        std::string name = r.target.substr(r.target.rfind('/') + 1);
        make_path(root_.fd, parent.substr(1));
        Fd pfd(open_beneath(root_.fd, parent, O_PATH | O_DIRECTORY));
        if (pfd) {
          if (dir)
            (void)::mkdirat(pfd.fd, name.c_str(), 0755);
          else
            (void)::close(::openat(pfd.fd, name.c_str(),
                                   O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644));
        }
        dst = Fd(open_beneath(root_.fd, r.target, O_PATH));
        // A folder of awaywork's lent where a bound tree has nothing (/etc/claude-code): the
        // parent becomes a read-only mirror holding an empty folder of that name to bind onto.
        if (!dst && dir && pfd) {
          std::string err = mask_missing(parent.empty() ? "/" : parent, {name});
          if (!err.empty()) return err;
          dst = Fd(open_beneath(root_.fd, r.target, O_PATH));
        }
      }
      if (!dst) return fail("open read-only mount point", r.target);
      if (attach(tree.fd, dst.fd) != 0) return fail("bind read-only", r.target);
    }
    return {};
  }

  // A hidden path that exists: a read-only empty tmpfs over a folder (keeping any writable path
  // below it reachable), /dev/null over anything else.
  std::string mask_existing(const std::string& path, int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return fail("stat", path);
    if (!S_ISDIR(st.st_mode)) {
      Fd null(::open_tree(AT_FDCWD, "/newroot/dev/null", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
      if (!null || set_attr(null.fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY) != 0 ||
          attach(null.fd, fd) != 0)
        return fail("mask file", path);
      return {};
    }
    struct Kept {
      std::string rel;
      bool dir;
      Fd tree;
    };
    std::vector<Kept> keep;
    std::vector<std::string> lent = plan_.writable;
    for (const auto& r : plan_.readable) lent.push_back(r.target);
    for (const auto& w : lent) {
      if (!under(w, path) || w == path) continue;
      Fd t(::open_tree(root_.fd, w.substr(1).c_str(),
                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW));
      struct stat wst {};
      if (!t || ::fstat(t.fd, &wst) != 0) return fail("keep writable path", w);
      keep.push_back({w.substr(path.size() + 1), S_ISDIR(wst.st_mode), std::move(t)});
    }
    Fd mask(new_tmpfs("0555"));
    if (!mask) return fail("make mask for", path);
    for (auto& k : keep) {
      std::string dir = k.dir ? k.rel : k.rel.substr(0, k.rel.rfind('/') + 1);
      if (!dir.empty() && !make_path(mask.fd, dir))
        return fail("mask mount point", path + "/" + k.rel);
      if (!k.dir)
        (void)::close(
            ::openat(mask.fd, k.rel.c_str(), O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444));
    }
    if (attach(mask.fd, fd) != 0) return fail("mask folder", path);
    for (auto& k : keep) {
      Fd dst(open_beneath(root_.fd, path + "/" + k.rel, O_PATH | (k.dir ? O_DIRECTORY : 0)));
      if (!dst || attach(k.tree.fd, dst.fd) != 0) return fail("re-expose lent path", k.rel);
    }
    if (set_attr(root_.fd, path.substr(1).c_str(), AT_SYMLINK_NOFOLLOW, MOUNT_ATTR_RDONLY) != 0)
      return fail("make mask read-only", path);
    return {};
  }

  // Hidden names that do not exist (or are links) in folder dir: replace dir by a read-only
  // mirror whose entries are binds of the originals, and where each name is an empty folder, so
  // that the host creating the path later cannot make it appear.
  std::string mask_missing(const std::string& dir, const std::set<std::string>& names) {
    Fd orig(open_beneath(root_.fd, dir, O_RDONLY | O_DIRECTORY));
    if (!orig) return fail("open parent of hidden path", dir);
    Fd mirror(new_tmpfs("0755"));
    if (!mirror) return fail("make mirror of", dir);
    std::vector<std::pair<std::string, bool>> entries;  // name, is_dir (links are recreated)
    DIR* d = ::fdopendir(::dup(orig.fd));
    if (!d) return fail("list", dir);
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == ".." || names.count(name)) continue;
      struct stat st {};
      if (::fstatat(orig.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = ::readlinkat(orig.fd, name.c_str(), target, sizeof target - 1);
        if (n < 0) continue;
        target[n] = 0;
        // Best effort, as the rest of the mirror: a link that cannot be made is absent.
        if (::symlinkat(target, mirror.fd, name.c_str()) != 0) continue;
        continue;
      }
      bool is_dir = S_ISDIR(st.st_mode);
      int rc =
          is_dir ? ::mkdirat(mirror.fd, name.c_str(), 0755)
                 : ::close(::openat(mirror.fd, name.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
      if (rc == 0) entries.emplace_back(name, is_dir);
    }
    ::closedir(d);
    for (const auto& n : names)
      if (::mkdirat(mirror.fd, n.c_str(), 0555) != 0 && errno != EEXIST)
        return fail("mask name", dir + "/" + n);
    Fd target(open_beneath(root_.fd, dir, O_PATH | O_DIRECTORY));
    if (!target || attach(mirror.fd, target.fd) != 0) return fail("mount mirror on", dir);
    for (const auto& [name, is_dir] : entries) {
      Fd t(::open_tree(orig.fd, name.c_str(),
                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW));
      if (!t && errno == ENOENT) {
        // Gone since it was listed (useradd's /etc/gshadow.lock): the mirror shows it gone too.
        (void)::unlinkat(mirror.fd, name.c_str(), is_dir ? AT_REMOVEDIR : 0);
        continue;
      }
      Fd dst(open_beneath(root_.fd, dir + "/" + name, O_PATH | (is_dir ? O_DIRECTORY : 0)));
      if (!t || !dst || attach(t.fd, dst.fd) != 0) return fail("mirror entry", dir + "/" + name);
    }
    if (set_attr(root_.fd, dir.substr(1).c_str(), AT_SYMLINK_NOFOLLOW, MOUNT_ATTR_RDONLY) != 0)
      return fail("make mirror read-only", dir);
    return {};
  }

  // Whether anything bound from the host reaches path: elsewhere the view holds nothing of the
  // host's (only the empty folders leading to bound paths), so there is nothing to mask.
  bool reached(const std::string& path) const {
    if (!plan_.enabled("view")) return true;
    auto reaches = [&](const std::string& bound) { return under(path, bound); };
    if (std::any_of(plan_.system.begin(), plan_.system.end(), reaches) ||
        std::any_of(plan_.writable.begin(), plan_.writable.end(), reaches))
      return true;
    for (const auto& r : plan_.readable)
      if (reaches(r.target)) return true;
    return (!plan_.enabled("tmp") && reaches("/tmp")) || (!plan_.enabled("run") && reaches("/run"));
  }

  // Files only root may read (SandboxPlan::root_only, found on the host side): each masked as a
  // hidden path that exists is.
  std::string mask_root_only() {
    for (const auto& path : plan_.root_only) {
      Fd fd(open_beneath(root_.fd, path, O_PATH));
      if (!fd) continue;  // not in this view (or under a folder masked already)
      std::string err = mask_existing(path, fd.fd);
      if (!err.empty()) return err;
    }
    return {};
  }

  std::string hide_paths() {
    std::vector<std::string> hidden;
    for (const auto& h : plan_.hidden)
      if (reached(h)) hidden.push_back(h);
    std::sort(hidden.begin(), hidden.end());
    std::map<std::string, std::set<std::string>> missing;  // parent -> names
    std::vector<std::string> done;
    for (const auto& path : hidden) {
      if (path == "/" ||
          std::any_of(done.begin(), done.end(), [&](auto& d) { return under(path, d); }))
        continue;  // already inside a mask
      done.push_back(path);
      Fd fd(open_beneath(root_.fd, path, O_PATH));
      if (fd) {
        std::string err = mask_existing(path, fd.fd);
        if (!err.empty()) return err;
        continue;
      }
      if (errno != ENOENT && errno != ELOOP && errno != ENOTDIR)
        return fail("look up hidden path", path);
      // Find the deepest folder that exists; its next component is what gets masked.
      std::string parent = path.substr(0, path.rfind('/'));
      std::string name = path.substr(path.rfind('/') + 1);
      for (;;) {
        AW_NO_WRESTRICT(if (parent.empty()) parent = "/";)  // base/gcc_quirks.h
        Fd p(open_beneath(root_.fd, parent, O_PATH | O_DIRECTORY));
        if (p) break;
        name = parent.substr(parent.rfind('/') + 1);
        parent = parent.substr(0, parent.rfind('/'));
      }
      missing[parent].insert(name);
    }
    for (const auto& [dir, names] : missing) {
      std::string err = mask_missing(dir, names);
      if (!err.empty()) return err;
    }
    return {};
  }

  // The folders leading to a bound path inside a private tmpfs (/tmp, /run, /dev/shm) are made
  // there by make_path, and would be as writable as the rest of that scratch space: a state
  // folder under the host's /tmp puts the clone at /tmp/.../state/runs/ID/work, and the phase
  // could write into the state folder, runs/ and its run folder. Elsewhere those folders are in
  // the view's root, read-only once built; here the first folder below the tmpfs is bound onto
  // itself read-only (recursively, so the binds and masks below it stay as they are).
  std::string seal_leading_folders() {
    std::set<std::string> targets(plan_.writable.begin(), plan_.writable.end());
    for (const auto& r : plan_.readable) targets.insert(r.target);
    std::vector<std::string> scratch = {"/dev/shm"};
    if (plan_.enabled("tmp")) scratch.push_back("/tmp");
    if (plan_.enabled("run")) scratch.push_back("/run");
    std::set<std::string> tops;
    for (const auto& t : targets)
      for (const auto& s : scratch) {
        if (!under(t, s) || t == s) continue;
        std::string top = t.substr(0, t.find('/', s.size() + 1));
        if (!targets.count(top)) tops.insert(top);  // a bound path itself is what it is
      }
    for (const auto& top : tops) {
      Fd tree(
          ::open_tree(root_.fd, top.substr(1).c_str(),
                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW));
      if (!tree) return fail("clone mount of", top);
      if (set_attr(tree.fd, "", AT_EMPTY_PATH,
                   MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) != 0)
        return fail("make read-only", top);
      Fd dst(open_beneath(root_.fd, top, O_PATH | O_DIRECTORY));
      if (!dst || attach(tree.fd, dst.fd) != 0) return fail("bind read-only", top);
    }
    return {};
  }

  // Make /newroot the root and drop the host's tree (and the staging tmpfs) out of reach.
  std::string enter_view() {
    root_ = Fd();
    old_ = Fd();
    if (::umount2("/oldroot", MNT_DETACH) != 0) return fail("detach", "old root");
    if (::chdir("/newroot") != 0) return fail("chdir", "/newroot");
    if (::syscall(SYS_pivot_root, ".", ".") != 0) return fail("pivot_root into", "view");
    if (::umount2(".", MNT_DETACH) != 0) return fail("detach", "staging");
    if (::chdir("/") != 0) return fail("chdir", "/");
    return {};
  }

  const SandboxPlan& plan_;
  Fd root_, old_;
};

}  // namespace

std::string build_fs_view(const SandboxPlan& plan) {
  return ViewBuilder(plan).build();
}

}  // namespace aw::sandbox
