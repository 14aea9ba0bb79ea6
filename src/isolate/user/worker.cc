#include "isolate/user/worker.h"

#include <grp.h>
#include <pwd.h>

#include <sstream>

#include "base/fs.h"

namespace aw {

bool is_plain_user_name(const std::string& name) {
  if (name.empty() || name.size() > 32 || name[0] == '-' || name[0] == '.') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

Result<WorkerUser> lookup_worker(const std::string& name) {
  if (!is_plain_user_name(name))
    return fail("worker user name '{}' is not a plain user name ([A-Za-z0-9_.-])", name);
  struct passwd pw {
  }, *found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found)
    return fail("worker user '{}' does not exist", name);
  WorkerUser w{
      name, pw.pw_uid, pw.pw_gid, pw.pw_dir ? pw.pw_dir : "", pw.pw_shell ? pw.pw_shell : "",
      "",   {}};
  if (w.uid == 0 || w.gid == 0) return fail("worker user '{}' is root", name);
  if (struct group* g = ::getgrgid(w.gid)) w.group = g->gr_name;
  int n = 64;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  while (::getgrouplist(name.c_str(), w.gid, groups.data(), &n) < 0)
    groups.resize(static_cast<size_t>(n));
  groups.resize(static_cast<size_t>(n));
  for (gid_t g : groups) {
    if (g == w.gid) continue;
    struct group* gr = ::getgrgid(g);
    w.others.push_back(gr ? gr->gr_name : std::to_string(g));
  }
  return w;
}

bool listed_in(const std::string& deny_file, const std::string& name) {
  auto text = read_file(deny_file, 1 << 20);
  if (!text) return false;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.pop_back();
    if (line == name) return true;
  }
  return false;
}

}  // namespace aw
