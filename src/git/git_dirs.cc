// The files of the git dirs awaywork writes itself (the clone's config, the shadow, the publish
// scratch): written from nothing so that no setting can come from anywhere else.
#include <sys/stat.h>

#include "git/git_internal.h"

namespace aw::gitx {

const char kNeutralAttributes[] =
    "# written by awaywork: raw bytes in and out, whatever .gitattributes say\n"
    "* !text !eol !crlf !filter !diff !merge !ident !working-tree-encoding !export-subst "
    "!export-ignore !delta !whitespace\n";

const char kCloneExclude[] = "# written by awaywork\n/.away/\n";

const InfoFile kCloneInfo[2] = {{"attributes", kNeutralAttributes}, {"exclude", kCloneExclude}};

std::string minimal_config(bool bare, const std::string& format) {
  // trustctime + checkstat=default: git trusts an index entry only when size, mtime, ctime,
  // inode, uid and gid all match. ctime cannot be set back by the agent (utimensat cannot touch
  // it), so a file rewritten and re-dated to its old mtime still gets re-hashed.
  std::string c = fmt::format(
      "[core]\n"
      "\trepositoryformatversion = {}\n"
      "\tbare = {}\n"
      "\tfilemode = true\n"
      "\tsymlinks = true\n"
      "\tignorecase = false\n"
      "\tprecomposeunicode = false\n"
      "\tlogallrefupdates = {}\n"
      "\ttrustctime = true\n"
      "\tcheckstat = default\n"
      "\tuntrackedcache = false\n"
      "\tsplitindex = false\n"
      "\tfsmonitor = false\n"
      "\thookspath = /dev/null\n"
      "\tautocrlf = false\n"
      "\tsafecrlf = false\n"
      "[gc]\n"
      "\tauto = 0\n",
      format == "sha1" ? 0 : 1, bare ? "true" : "false", bare ? "false" : "true");
  if (format != "sha1") c += fmt::format("[extensions]\n\tobjectformat = {}\n", format);
  return c;
}

Status make_borrowing_git_dir(const std::string& dir, const std::string& borrow_objects,
                              const std::string& format) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) return fail("{} already exists", dir);
  // What git needs and no more (it makes the rest on demand): on a file system where an unlink
  // costs milliseconds, each folder left out is time saved when the scratch is removed.
  for (const char* sub : {"", "/objects/info", "/refs", "/info"}) AW_CHECK(make_dirs(dir + sub));
  AW_CHECK(write_file(dir + "/config", minimal_config(true, format)));
  // A detached HEAD until the caller points it somewhere: no branch needed in a scratch dir.
  AW_CHECK(write_file(dir + "/HEAD", "ref: refs/heads/awaywork-none\n"));
  AW_CHECK(write_file(dir + "/objects/info/alternates", borrow_objects + "\n"));
  AW_CHECK(write_file(dir + "/info/attributes", kNeutralAttributes));
  return {};
}

}  // namespace aw::gitx
