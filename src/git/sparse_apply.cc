// The patch applied on the clean side without an index of the whole base: the index git applies
// it to holds only the paths the patch was checked for (their base entries, read with the base's
// folders along them by one `git cat-file --batch`), and the new tree is the base's with those
// folders rewritten, every other subtree reused by its id. git still applies the patch (and
// refuses what it refuses) and git's diff-tree still says which paths the result changes. A
// 20k-file base costs what a 20-file one does.
#include <arpa/inet.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "git/git_internal.h"

namespace aw::gitx {

namespace {

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

void put32(std::string& out, uint32_t v) {
  v = htonl(v);
  out.append(reinterpret_cast<const char*>(&v), 4);
}

uint32_t get32(const std::string& in, size_t at) {
  uint32_t v;
  std::memcpy(&v, in.data() + at, 4);
  return ntohl(v);
}

Result<std::string> tree_mode(uint32_t mode) {
  switch (mode) {
    case 0100644:
      return std::string("100644");
    case 0100755:
      return std::string("100755");
    case 0120000:
      return std::string("120000");
    case 0160000:
      return std::string("160000");
  }
  return fail("an index entry of mode {:o}", mode);
}

// A base entry's mode as git's read-tree puts it in the index (canonical: an old tree's 100664
// reads as 100644).
Result<uint32_t> index_mode(const std::string& tree_mode) {
  char* end = nullptr;
  unsigned long m = std::strtoul(tree_mode.c_str(), &end, 8);
  if (!tree_mode.empty() && !*end) {
    if ((m & 0170000) == 0100000) return (m & 0100) ? 0100755u : 0100644u;
    if (m == 0120000 || m == 0160000) return static_cast<uint32_t>(m);
  }
  return fail("a base entry of mode {}", tree_mode);
}

}  // namespace

Status check_tree_path(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.back() == '/')
    return fail("'{}' is not a relative path", path);
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7f || c == '\\') return fail("'{}' has a control character", path);
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string part = path.substr(start, end - start);
    std::string folded;
    for (char c : part) folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!folded.empty() && (folded.back() == '.' || folded.back() == ' ')) folded.pop_back();
    if (part.empty() || part == "." || part == ".." || folded == ".git")
      return fail("'{}' has a '{}' component", path, part);
    start = end + 1;
  }
  return {};
}

Result<std::string> index_bytes(std::vector<IndexEntry> entries, const std::string& format) {
  std::sort(entries.begin(), entries.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.path < b.path; });
  std::string out = "DIRC";
  put32(out, 2);
  put32(out, static_cast<uint32_t>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    const IndexEntry& e = entries[i];
    if (i > 0 && entries[i - 1].path == e.path) return fail("{} twice in the index", e.path);
    size_t start = out.size();
    for (int k = 0; k < 6; ++k) put32(out, 0);  // ctime, mtime, dev, ino: no work tree
    put32(out, e.mode);
    for (int k = 0; k < 3; ++k) put32(out, 0);  // uid, gid, size
    AW_TRY(std::string raw, from_hex(e.id));
    out += raw;
    uint16_t flags = htons(static_cast<uint16_t>(std::min<size_t>(e.path.size(), 0xfff)));
    out.append(reinterpret_cast<const char*>(&flags), 2);
    out += e.path;
    size_t len = ((out.size() - start) + 8) & ~size_t{7};
    out.append(start + len - out.size(), '\0');
  }
  out += digest(format, out);
  return out;
}

Result<std::vector<IndexEntry>> parse_index(const std::string& in, const std::string& format) {
  size_t raw = format == "sha256" ? 32 : 20;
  if (in.size() < 12 + raw || in.compare(0, 4, "DIRC") != 0) return fail("not an index file");
  if (digest(format, std::string_view(in).substr(0, in.size() - raw)) != in.substr(in.size() - raw))
    return fail("the index file's checksum is wrong");
  uint32_t version = get32(in, 4), count = get32(in, 8);
  if (version != 2 && version != 3) return fail("index version {}", version);
  std::vector<IndexEntry> out;
  size_t pos = 12, end = in.size() - raw;
  for (uint32_t i = 0; i < count; ++i) {
    size_t fixed = 40 + raw + 2;
    if (end - pos < fixed) return fail("the index ends inside entry {}", i);
    uint16_t flags;
    std::memcpy(&flags, in.data() + pos + 40 + raw, 2);
    flags = ntohs(flags);
    if (flags & 0x3000) return fail("the index has a conflict entry");
    if ((flags & 0x4000) && version == 3) fixed += 2;
    size_t nul = in.find('\0', pos + fixed);
    if (nul == std::string::npos || nul >= end) return fail("the index ends inside entry {}", i);
    out.push_back({in.substr(pos + fixed, nul - pos - fixed), get32(in, pos + 24),
                   to_hex(std::string_view(in).substr(pos + 40, raw))});
    pos += (fixed + (nul - pos - fixed) + 8) & ~size_t{7};
    if (pos > end) return fail("the index ends inside entry {}", i);
  }
  return out;
}

namespace {

// The new tree, folder by folder from the root: the base's entries of each folder along the
// touched paths, with the touched ones replaced, added or removed; a folder left empty goes.
struct TreeBuilder {
  const std::map<std::string, std::vector<TreeEntry>>& base;    // the base's folders read
  const std::set<std::string>& folders;                         // every folder along the paths
  const std::map<std::string, std::optional<IndexEntry>>& now;  // touched path: entry or gone
  std::string objects, format;

  Result<std::optional<std::string>> build(const std::string& dir) {
    std::map<std::string, TreeEntry> entries;
    if (auto it = base.find(dir); it != base.end())
      for (const TreeEntry& e : it->second) entries[e.name] = e;
    std::string prefix = dir.empty() ? "" : dir + "/";
    for (const std::string& sub : folders) {
      if (sub.empty() || parent_of(sub) != dir) continue;
      AW_TRY(auto id, build(sub));
      std::string name = name_of(sub);
      auto it = entries.find(name);
      if (it != entries.end() && !it->second.is_tree()) {
        auto gone = now.find(sub);  // a file may become a folder only when the patch removes it
        if (gone == now.end() || gone->second)
          return fail("{} is a file in the base; the patch puts files under it", sub);
        entries.erase(it);
      }
      if (id)
        entries[name] = TreeEntry{"40000", name, *id};
      else if (it != entries.end())
        entries.erase(name);
    }
    for (const auto& [path, entry] : now) {
      if (parent_of(path) != dir) continue;
      std::string name = name_of(path);
      auto it = entries.find(name);
      if (entry) {
        if (it != entries.end() && it->second.is_tree())
          return fail("{} is a folder; the patch makes it a file", path);
        AW_TRY(std::string mode, tree_mode(entry->mode));
        entries[name] = TreeEntry{mode, name, entry->id};
      } else if (it != entries.end() && !it->second.is_tree()) {
        entries.erase(it);
      }
    }
    if (entries.empty()) return std::optional<std::string>{};
    std::vector<TreeEntry> list;
    for (auto& [_, e] : entries) list.push_back(std::move(e));
    AW_TRY(std::string content, tree_content(std::move(list)));
    AW_TRY(std::string id, write_loose_object(objects, "tree", content, format));
    return std::optional<std::string>(id);
  }
};

// The paths git reads from a `--numstat -z` listing of the patch (no rename detection: apply has
// none without --3way and the patch was made with --no-renames).
Result<std::vector<std::string>> numstat_paths(const std::string& out) {
  std::vector<std::string> paths;
  for (const auto& rec : split_z(out)) {
    size_t t1 = rec.find('\t');
    size_t t2 = t1 == std::string::npos ? t1 : rec.find('\t', t1 + 1);
    if (t2 == std::string::npos) return fail("unexpected apply --numstat record '{}'", rec);
    paths.push_back(rec.substr(t2 + 1));
  }
  return paths;
}

}  // namespace

Result<std::vector<std::string>> patch_paths(const GitCall& base, const std::string& patch) {
  GitCall g = base;
  g.args = {"apply", "--numstat", "-z", "-p1"};
  g.stdin_data = patch;
  AW_TRY(std::string listed, with_context(git_ok(g), "reading the patch's paths"));
  return numstat_paths(listed);
}

namespace {

Result<std::set<std::string>> folders_along(const std::vector<std::string>& paths) {
  std::set<std::string> folders = {""};
  for (const std::string& p : paths) {
    AW_CHECK(check_tree_path(p));
    for (std::string d = parent_of(p); !d.empty(); d = parent_of(d)) folders.insert(d);
  }
  return folders;
}

}  // namespace

Result<std::vector<std::string>> base_folder_names(const std::string& base_commit,
                                                   const std::vector<std::string>& paths) {
  AW_TRY(auto folders, folders_along(paths));
  std::vector<std::string> names;
  for (const std::string& d : folders) names.push_back(base_commit + ":" + d);
  return names;
}

Result<AppliedTree> apply_sparse(const GitCall& base, const std::string& base_commit,
                                 const std::string& patch, const std::vector<std::string>& paths,
                                 const std::vector<CatObject>* folders_read) {
  if (!is_object_id(base_commit)) return fail("base '{}' is not a full commit id", base_commit);
  std::string format = hash_format_of(base_commit);
  AW_TRY(auto folders, folders_along(paths));
  // The base's folders along the paths, by one git (or as the caller read them with its own
  // objects); a folder the base lacks is new.
  std::vector<CatObject> objs;
  if (folders_read && folders_read->size() == folders.size()) {
    objs = *folders_read;
  } else {
    AW_TRY(auto names, base_folder_names(base_commit, paths));
    AW_TRY(objs, cat_objects(base, names));
  }
  std::map<std::string, std::vector<TreeEntry>> trees;
  size_t k = 0;
  for (const std::string& d : folders) {
    const CatObject& o = objs[k++];
    if (o.type == "tree") {
      AW_TRY(trees[d],
             with_context(parse_tree(o.content, format), "the base's folder '" + d + "'"));
    } else if (d.empty()) {
      return fail("the base {} has no tree", base_commit);
    }
  }
  auto base_entry = [&](const std::string& path) -> const TreeEntry* {
    auto t = trees.find(parent_of(path));
    if (t == trees.end()) return nullptr;
    for (const TreeEntry& e : t->second)
      if (e.name == name_of(path)) return &e;
    return nullptr;
  };

  std::vector<IndexEntry> before;
  for (const std::string& p : paths)
    if (const TreeEntry* e = base_entry(p); e && !e->is_tree()) {
      AW_TRY(uint32_t mode, index_mode(e->mode));
      before.push_back({p, mode, e->id});
    }
  AW_TRY(std::string index, index_bytes(before, format));
  AW_CHECK(write_file(base.index_file, index));
  // --numstat lists the paths git reads from the patch; --apply after it applies it too.
  GitCall g = base;
  g.args = {"apply", "--cached", "--whitespace=nowarn", "-p1", "--numstat", "-z", "--apply"};
  g.stdin_data = patch;
  AW_TRY(std::string listed, with_context(git_ok(g), "the patch does not apply to the base"));
  AW_TRY(std::vector<std::string> want, numstat_paths(listed));
  AW_TRY(std::string after_bytes, read_file(base.index_file, 64u << 20));
  AW_TRY(auto after, with_context(parse_index(after_bytes, format), "the index git applied to"));

  std::map<std::string, std::optional<IndexEntry>> now;
  for (const std::string& p : paths) now[p];
  for (const std::string& p : want) now[p];
  for (const IndexEntry& e : after) now[e.path] = e;
  std::set<std::string> checked(paths.begin(), paths.end());
  for (const auto& [p, _] : now)
    if (!checked.count(p)) return fail("the patch changes {}, which is not on the checked list", p);
  TreeBuilder b{trees, folders, now, base.git_dir + "/objects", format};
  AW_TRY(auto tree, b.build(""));
  AppliedTree out;
  out.tree = tree ? *tree : "";
  if (!tree) {  // every file removed: the empty tree
    AW_TRY(out.tree, write_loose_object(b.objects, "tree", "", format));
  }
  AW_TRY(out.changed, changed_paths(base, base_commit, out.tree));
  if (sorted_unique(out.changed) != sorted_unique(want))
    return fail("the applied tree changes other paths than the patch names");
  return out;
}

}  // namespace aw::gitx
