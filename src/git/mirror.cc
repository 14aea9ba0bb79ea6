// A remote repository's mirror: awaywork's own bare git dir, fetched before each unit, from which
// the unit's clone is made with --no-hardlinks (so the clone shares no file with it). Its config
// is awaywork's minimal one and the remote's URL is never written into it: every fetch names the
// URL and refspecs on the command line, so nothing a remote sends can redirect a later fetch, and
// every fetch first checks that the config still holds only what awaywork wrote (config_check.cc).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "git/git_internal.h"

namespace aw {

MirrorLock& MirrorLock::operator=(MirrorLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

MirrorLock::~MirrorLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

namespace {

std::string safe_part(std::string_view s) {
  std::string out;
  for (char c : s)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

Result<MirrorLock> lock_mirror(const std::string& dir) {
  std::string path = dir + ".lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  MirrorLock lock(fd);
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) return fail("lock {}: {}", path, errno_text(errno));
  return lock;
}

// The remote's default branch, as HEAD of the mirror (the base of a unit that names none).
Status set_head(const gitx::Side& side, const std::string& dir) {
  AW_TRY(Captured c,
         gitx::remote_git(side, dir, {"ls-remote", "--symref", "--", side.dest, "HEAD"}));
  const std::string prefix = "ref: refs/heads/";
  if (!c.out.starts_with(prefix)) return {};  // an empty remote or no symref: HEAD stays
  std::string line = gitx::first_line(c.out);
  std::string branch = line.substr(prefix.size(), line.find('\t') - prefix.size());
  GitCall g = gitx::at(dir, {"check-ref-format", "refs/heads/" + branch});
  AW_TRY(Captured ok, git(g));
  if (ok.exit_code != 0 || branch.empty() || branch[0] == '-') return {};
  // Units publishing from this mirror read it without its lock: HEAD must never be missing, even
  // for a moment (git would call the mirror "not a git repository").
  std::string head = "ref: refs/heads/" + branch + "\n";
  if (auto now = read_file(dir + "/HEAD", 4096); now && *now == head) return {};
  return replace_file(dir + "/HEAD", head);
}

}  // namespace

std::string mirror_dir_for(const std::string& state_dir, const std::string& url) {
  auto u = gitx::url_parts(url);
  std::string host = u ? u->host : "local";
  size_t start = url.find("://");
  std::string_view rest =
      start == std::string::npos ? url : std::string_view(url).substr(start + 3);
  size_t slash = rest.find('/');
  std::string_view path = slash == std::string::npos ? "" : rest.substr(slash + 1);
  std::string out = state_dir + "/mirrors/" + safe_part(host);
  while (!path.empty()) {
    size_t next = path.find('/');
    std::string_view part = path.substr(0, next);
    // two appends, not `"/" + ...`: that form trips GCC 12's -Wrestrict false positive at -O3.
    if (!part.empty()) out.append("/").append(safe_part(part));
    path = next == std::string_view::npos ? "" : path.substr(next + 1);
  }
  if (!out.ends_with(".git")) out += ".git";
  return out;
}

Result<Mirror> update_mirror(const ApplyTarget& remote, const std::string& dir,
                             const std::string& askpass) {
  if (remote.url.empty()) return fail("a mirror needs a remote URL");
  AW_TRY(gitx::Side side, gitx::open_side(remote, askpass));
  std::string parent = dir.substr(0, dir.rfind('/'));
  AW_CHECK(make_dirs(parent, 0700));
  Mirror m;
  AW_TRY(m.lock, lock_mirror(dir));
  struct stat st {};
  if (::lstat((dir + "/HEAD").c_str(), &st) != 0) {
    AW_CHECK(gitx::make_own_git_dir(dir));
    m.created = true;
  } else if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return fail("mirror {} is not a folder", dir);
  }
  AW_CHECK(with_context(
      gitx::remote_git(side, dir,
                       {"fetch", "--quiet", "--prune", "--no-tags", "--no-recurse-submodules",
                        "--no-write-fetch-head", "--", side.dest, "+refs/heads/*:refs/heads/*",
                        "+refs/tags/*:refs/tags/*"}),
      "updating the mirror " + dir));
  AW_CHECK(set_head(side, dir));
  m.repo = SourceRepo{.git_dir = dir, .work_tree = ""};
  return m;
}

Status fetch_pull_head(const ApplyTarget& remote, const std::string& dir,
                       const std::string& askpass, int64_t number) {
  if (number <= 0) return fail("pull request number {} is not one", number);
  std::string ref = "refs/pull/" + std::to_string(number) + "/head";
  AW_TRY(Mirror m, update_mirror(remote, dir, askpass));  // made if new; its lock held here
  AW_TRY(gitx::Side side, gitx::open_side(remote, askpass));
  // Forced: a fork's author may rewrite their branch. The ref is outside refs/heads/* and
  // refs/tags/*, so update_mirror's --prune leaves it for the unit's clone.
  AW_CHECK(with_context(
      gitx::remote_git(
          side, dir,
          {"fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head",
           "--", side.dest, "+refs/pull/" + std::to_string(number) + "/head:" + ref}),
      "fetching " + ref + " into the mirror " + dir));
  return {};
}

}  // namespace aw
