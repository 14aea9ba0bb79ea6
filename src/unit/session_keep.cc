// The agent's session kept between a pull request's units (session_keep.h). The unit's HOME is
// hostile when its session is kept (the agent and the checks ran there, and
// fs.protected_symlinks may be 0): every step is relative to a folder opened with O_NOFOLLOW, a
// file is opened with O_NOFOLLOW | O_NONBLOCK (a fifo never blocks the unit's end) and must be the
// regular file that was listed. The state folder is the owner's.
#include "unit/session_keep.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/unique_fd.h"
#include "check/redact.h"
#include "provider/resume.h"
#include "unit/nofollow_folder.h"

namespace aw {

namespace {

constexpr size_t kMaxNotes = 5;  // refusals named one by one; the rest are counted
constexpr const char* kPullFile = "pull";

struct Found {
  std::string rel;  // relative to the provider's root, '/'-separated
  struct timespec mtime {};
};

struct Walk {
  const ProviderSpec& spec;
  const SessionCaps& caps;
  std::string shown;  // how notes name the root: "~/.claude/projects"
  size_t seen = 0;
  size_t refused = 0;
  std::vector<Found> found;
  std::vector<std::string>& notes;

  void refuse(const std::string& rel, const std::string& why) {
    if (++refused <= kMaxNotes)
      notes.push_back(fmt::format("resume: {}/{} {}: not kept", shown, rel, why));
  }
};

const char* kind_of(mode_t m) {
  if (S_ISLNK(m)) return "is a symbolic link";
  if (S_ISFIFO(m)) return "is a fifo";
  if (S_ISSOCK(m)) return "is a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "is a device";
  return "is not a regular file";
}

// The session files `left` folders below dirfd (rel its path from the root), as found.
void walk_below(int dirfd, const std::string& rel, int left, Walk& w) {
  for (const auto& name : names_in(dirfd)) {
    if (++w.seen > w.caps.walk_entries) return;
    std::string path = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (left > 0) {
      if (S_ISDIR(st.st_mode)) {
        UniqueFd sub(open_folder_at(dirfd, name));
        if (sub) walk_below(sub.get(), path, left - 1, w);
      } else if (!S_ISREG(st.st_mode)) {
        w.refuse(path, kind_of(st.st_mode));  // a link where a folder belongs is not followed
      }
      continue;
    }
    if (S_ISDIR(st.st_mode)) continue;  // a subagent's folder: no session to resume
    if (!is_session_file(w.spec, path)) {
      if (!S_ISREG(st.st_mode) && name.size() > 6 && name.substr(name.size() - 6) == ".jsonl")
        w.refuse(path, kind_of(st.st_mode));
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      w.refuse(path, kind_of(st.st_mode));
      continue;
    }
    w.found.push_back({path, st.st_mtim});
  }
}

bool newer(const Found& a, const Found& b) {
  if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec > b.mtime.tv_sec;
  if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec > b.mtime.tv_nsec;
  return a.rel > b.rel;
}

// f read through root without following a link: the regular file it was when listed, at most
// cap bytes (a larger one is refused: Error).
Result<std::string> read_found(int root, const Found& f, size_t cap) {
  UniqueFd dir = open_below(root, parent_of(f.rel));
  if (!dir) return fail("its folder was replaced");
  UniqueFd fd(::openat(dir.get(), base_of(f.rel).c_str(),
                       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) return fail("cannot be opened ({})", errno_text(errno));
  if (!S_ISREG(st.st_mode)) return fail("{}", kind_of(st.st_mode));
  if (static_cast<uint64_t>(st.st_size) > cap) return fail("is larger than {} MiB", cap >> 20);
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot be read ({})", errno_text(errno));
    if (n == 0) return data;
    if (data.size() + static_cast<size_t>(n) > cap)
      return fail("is larger than {} bytes", cap);  // it grew while read
    data.append(buf, static_cast<size_t>(n));
  }
}

// Written (folders 0700, the file 0600) with the mtime it had: the newest is the one resumed.
Status put_file(const std::string& path, const std::string& data, const struct timespec& mtime) {
  AW_CHECK(make_dirs(parent_of(path), 0700));
  AW_CHECK(write_file(path, data, 0600));
  struct timespec times[2] = {mtime, mtime};
  if (::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
    return fail("set the time of {}: {}", path, errno_text(errno));
  return {};
}

// The provider's session files below root (an open folder), newest first, at most caps.files.
std::vector<Found> list_sessions(int root, const ProviderSpec& spec, int depth,
                                 const SessionCaps& caps, const std::string& shown,
                                 std::vector<std::string>& notes) {
  Walk w{spec, caps, shown, 0, 0, {}, notes};
  walk_below(root, "", depth, w);
  if (w.seen > caps.walk_entries)
    notes.push_back(fmt::format("resume: {} holds more than {} entries: the rest not looked at",
                                shown, caps.walk_entries));
  if (w.refused > kMaxNotes)
    notes.push_back(fmt::format("resume: {} more refused under {}", w.refused - kMaxNotes, shown));
  std::sort(w.found.begin(), w.found.end(), newer);
  return std::move(w.found);
}

// The least recently kept pull requests' folders removed while more than caps.pulls are kept.
void evict(const std::string& sessions, const std::string& keep, const SessionCaps& caps) {
  UniqueFd dir(::open(sessions.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) return;
  std::vector<std::pair<struct timespec, std::string>> kept;
  for (const auto& name : names_in(dir.get())) {
    struct stat st {};
    if (name == keep || name.front() == '.' ||
        ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
      continue;
    kept.emplace_back(st.st_mtim, name);
  }
  if (kept.size() + 1 <= caps.pulls) return;
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.first.tv_sec != b.first.tv_sec ? a.first.tv_sec < b.first.tv_sec
                                            : a.first.tv_nsec < b.first.tv_nsec;
  });
  for (size_t i = 0; i + caps.pulls < kept.size() + 1; ++i)
    (void)remove_tree(sessions + "/" + kept[i].second);
}

}  // namespace

std::string session_folder(const SessionKey& k) {
  return k.state_dir + "/sessions/" + sha256_hex(k.pull_url).substr(0, 32);
}

Status keep_agent_session(const SessionKey& k, const std::string& home,
                          const std::vector<std::string>& literals, std::vector<std::string>& notes,
                          const SessionCaps& caps) {
  if (!k.spec || k.pull_url.empty()) return {};
  auto files = session_files(*k.spec);
  if (!files) return {};
  UniqueFd h(::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!h) return fail("open the unit's HOME {}: {}", home, errno_text(errno));
  UniqueFd root = open_below(h.get(), files->root);
  std::string shown = "~/" + files->root;
  if (!root) {
    notes.push_back(fmt::format("resume: no session in {} to keep", shown));
    return {};
  }
  std::vector<Found> found = list_sessions(root.get(), *k.spec, files->depth, caps, shown, notes);

  std::string folder = session_folder(k);
  std::string sessions = parent_of(folder);
  AW_CHECK(make_dirs(sessions, 0700));
  if (::chmod(sessions.c_str(), 0700) != 0)
    return fail("chmod {}: {}", sessions, errno_text(errno));
  std::string fresh = fmt::format("{}/.new-{}-{}", sessions, base_of(folder), ::getpid());
  (void)remove_tree(fresh);
  AW_CHECK(make_dirs(fresh, 0700));
  size_t kept = 0, bytes = 0, left_out = 0;
  for (const Found& f : found) {
    if (kept >= caps.files) {
      ++left_out;
      continue;
    }
    auto data = read_found(root.get(), f, caps.file_bytes);
    if (!data) {
      notes.push_back(
          fmt::format("resume: {}/{} {}: not kept", shown, f.rel, data.error().message));
      continue;
    }
    if (bytes + data->size() > caps.total_bytes) {
      ++left_out;
      continue;
    }
    // The session may hold what the agent printed of the unit's secrets: none is kept.
    std::string clean = redact_all(*data, literals);
    if (auto ok = put_file(fresh + "/" + k.spec->name + "/" + f.rel, clean, f.mtime); !ok) {
      (void)remove_tree(fresh);
      return ok;
    }
    bytes += data->size();
    ++kept;
  }
  if (left_out > 0)
    notes.push_back(fmt::format(
        "resume: {} older session file(s) left out (at most {} files, {} MiB per pull request)",
        left_out, caps.files, caps.total_bytes >> 20));
  if (kept == 0) {
    (void)remove_tree(fresh);
    notes.push_back(fmt::format("resume: no session in {} to keep", shown));
    return {};
  }
  if (auto ok = write_file(fresh + "/" + kPullFile, k.pull_url + "\n", 0600); !ok) {
    (void)remove_tree(fresh);
    return ok;
  }
  (void)remove_tree(folder);
  if (::rename(fresh.c_str(), folder.c_str()) != 0) {
    int err = errno;
    (void)remove_tree(fresh);
    return fail("keep the agent's session in {}: {}", folder, errno_text(err));
  }
  evict(sessions, base_of(folder), caps);
  notes.push_back(fmt::format("resume: {} session file(s) of {} ({} bytes) kept for {}", kept,
                              k.spec->name, bytes, k.pull_url));
  return {};
}

Result<std::string> hand_agent_session(const SessionKey& k, const std::string& home,
                                       const std::string& clone, std::vector<std::string>& notes,
                                       const SessionCaps& caps) {
  if (!k.spec || k.pull_url.empty()) return std::string();
  auto files = session_files(*k.spec);
  if (!files) {
    notes.push_back(
        fmt::format("resume: provider {} cannot continue a session; the agent starts "
                    "afresh",
                    k.spec->name));
    return std::string();
  }
  std::string folder = session_folder(k);
  auto pull = read_file(folder + "/" + kPullFile, 4096);
  if (!pull) {
    notes.push_back("resume: no session kept for this pull request; the agent starts afresh");
    return std::string();
  }
  if (*pull != k.pull_url + "\n") {
    notes.push_back(
        fmt::format("resume: {} is kept for another pull request; not handed over", folder));
    return std::string();
  }
  UniqueFd root(::open((folder + "/" + k.spec->name).c_str(),
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root) {
    notes.push_back(fmt::format(
        "resume: no session of provider {} kept for this pull request; the agent starts afresh",
        k.spec->name));
    return std::string();
  }
  std::vector<Found> found =
      list_sessions(root.get(), *k.spec, files->depth, caps, folder + "/" + k.spec->name, notes);
  if (found.size() > caps.files) found.resize(caps.files);
  std::string id;
  for (const Found& f : found) {
    auto data = read_found(root.get(), f, caps.file_bytes);
    if (!data) {
      notes.push_back(
          fmt::format("resume: {}/{} {}: not handed over", folder, f.rel, data.error().message));
      continue;
    }
    std::string at = home + "/" + files->root + "/" + session_place(*k.spec, f.rel, clone);
    AW_CHECK(with_context(put_file(at, *data, f.mtime), "hand the agent's session over"));
    if (id.empty()) id = session_id(*k.spec, f.rel);
  }
  if (!id.empty())
    notes.push_back(fmt::format("resume: the agent continues session {} of {}", id, k.pull_url));
  return id;
}

}  // namespace aw
