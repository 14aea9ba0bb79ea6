// git objects as bytes, for building a commit's tree from the base's trees along the changed paths
// (sparse_apply.cc) instead of an index of the whole base: what one `git cat-file --batch` says,
// a tree's entries parsed and written back in git's order, an object's id, a loose object written
// by awaywork into its own scratch git dir.
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>

#include "git/git_internal.h"

namespace aw::gitx {

bool TreeEntry::is_tree() const {
  return mode == "40000" || mode == "040000";
}

std::string hash_format_of(const std::string& id) {
  return id.size() == 64 ? "sha256" : "sha1";
}

Result<std::string> from_hex(const std::string& id) {
  if (!is_object_id(id)) return fail("'{}' is not an object id", id);
  std::string out;
  for (size_t i = 0; i < id.size(); i += 2) {
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    out += static_cast<char>(nib(id[i]) << 4 | nib(id[i + 1]));
  }
  return out;
}

std::string digest(const std::string& format, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, format == "sha256" ? EVP_sha256() : EVP_sha1(),
             nullptr);
  return std::string(reinterpret_cast<char*>(md), len);
}

std::string object_id(const std::string& type, const std::string& content,
                      const std::string& format) {
  std::string framed = type + " " + std::to_string(content.size()) + '\0' + content;
  return to_hex(digest(format, framed));
}

Result<std::vector<CatObject>> cat_objects(const GitCall& base,
                                           const std::vector<std::string>& names) {
  GitCall g = base;
  g.args = {"cat-file", "--batch"};
  for (const std::string& n : names) {
    if (n.find_first_of("\n\r") != std::string::npos) return fail("object name with a newline");
    g.stdin_data += n + "\n";
  }
  AW_TRY(std::string out, git_ok(g));
  std::vector<CatObject> got;
  size_t pos = 0;
  for (const std::string& n : names) {
    size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) return fail("cat-file --batch ended early at '{}'", n);
    std::string head = out.substr(pos, nl - pos);
    pos = nl + 1;
    if (head == n + " missing" || head == n + " ambiguous") {
      got.push_back({});
      continue;
    }
    size_t s1 = head.find(' '), s2 = head.rfind(' ');
    if (s1 == std::string::npos || s1 == s2 || !is_object_id(head.substr(0, s1)))
      return fail("cat-file --batch said '{}' for '{}'", head, n);
    std::string size_text = head.substr(s2 + 1);
    char* end = nullptr;
    unsigned long long size = std::strtoull(size_text.c_str(), &end, 10);
    if (size_text.empty() || *end || size > out.size() - pos || out[pos + size] != '\n')
      return fail("cat-file --batch: a bad size in '{}'", head);
    got.push_back({head.substr(s1 + 1, s2 - s1 - 1), out.substr(pos, size)});
    pos += size + 1;
  }
  return got;
}

Result<std::vector<TreeEntry>> parse_tree(const std::string& content, const std::string& format) {
  size_t raw = format == "sha256" ? 32 : 20;
  std::vector<TreeEntry> out;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t sp = content.find(' ', pos);
    size_t nul = sp == std::string::npos ? sp : content.find('\0', sp);
    if (nul == std::string::npos || sp == pos || nul == sp + 1 || content.size() - nul - 1 < raw)
      return fail("a malformed tree entry at byte {}", pos);
    out.push_back({content.substr(pos, sp - pos), content.substr(sp + 1, nul - sp - 1),
                   to_hex(std::string_view(content).substr(nul + 1, raw))});
    pos = nul + 1 + raw;
  }
  return out;
}

Result<std::string> tree_content(std::vector<TreeEntry> entries) {
  // git's order: byte order of the names, a folder's name compared as if it ended in '/'.
  auto key = [](const TreeEntry& e) { return e.is_tree() ? e.name + "/" : e.name; };
  std::sort(entries.begin(), entries.end(),
            [&](const TreeEntry& a, const TreeEntry& b) { return key(a) < key(b); });
  std::string out;
  for (const TreeEntry& e : entries) {
    AW_TRY(std::string raw, from_hex(e.id));
    out += e.mode + " " + e.name + '\0' + raw;
  }
  return out;
}

Result<std::string> write_loose_object(const std::string& objects_dir, const std::string& type,
                                       const std::string& content, const std::string& format) {
  std::string framed = type + " " + std::to_string(content.size()) + '\0' + content;
  std::string id = to_hex(digest(format, framed));
  std::string dir = objects_dir + "/" + id.substr(0, 2);
  std::string path = dir + "/" + id.substr(2);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return id;  // the same bytes by their name
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return fail("mkdir {}: {}", dir, errno_text(errno));
  uLongf len = compressBound(framed.size());
  std::string packed(len, '\0');
  if (compress2(reinterpret_cast<Bytef*>(packed.data()), &len,
                reinterpret_cast<const Bytef*>(framed.data()), framed.size(), 1) != Z_OK)
    return fail("compressing object {}", id);
  packed.resize(len);
  std::string tmp = dir + "/tmp_obj_XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return fail("mkstemp in {}: {}", dir, errno_text(errno));
  bool ok = ::write(fd, packed.data(), packed.size()) == static_cast<ssize_t>(packed.size());
  ok = ::fchmod(fd, 0444) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return fail("writing object {}: {}", path, errno_text(e));
  }
  return id;
}

}  // namespace aw::gitx
