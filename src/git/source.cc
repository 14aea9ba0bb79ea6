// The owner's repository: found once (the only time git discovers a repository from a folder),
// then always addressed by its absolute git dir.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "git/git_internal.h"

namespace aw {

namespace {

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

}  // namespace

Result<SourceRepo> open_source(const std::string& given) {
  // git runs with cwd "/", so a relative path is made absolute against our own cwd here.
  std::error_code ec;
  std::string path = given.empty() ? given : std::filesystem::absolute(given, ec).string();
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return fail("source {}: not a folder", path);
  // Discovery reads the source's own config: trusted (it is the owner's), but its hooks and
  // fsmonitor stay off like everywhere else.
  auto out =
      git_ok(gitx::at("", {"-C", path, "rev-parse", "--absolute-git-dir", "--is-bare-repository"}));
  if (!out) return fail("source {} is not a git repository: {}", path, out.error().message);
  std::vector<std::string> lines;
  for (size_t start = 0; start < out->size();) {
    size_t end = std::min(out->find('\n', start), out->size());
    lines.push_back(out->substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() < 2) return fail("source {}: unexpected rev-parse output", path);
  SourceRepo src{.git_dir = lines[0], .work_tree = ""};
  if (lines[1] == "false") {
    AW_TRY(std::string t, git_ok(gitx::at("", {"-C", path, "rev-parse", "--show-toplevel"})));
    src.work_tree = first_line(t);
  }
  return src;
}

Result<std::string> resolve_commit(const SourceRepo& src, const std::string& ref) {
  std::string name = ref.empty() ? "HEAD" : ref;
  if (name[0] == '-') return fail("ref '{}' must not start with '-'", name);
  AW_TRY(Captured c,
         git(gitx::at(src.git_dir, {"rev-parse", "--verify", "--quiet", name + "^{commit}"})));
  std::string id = first_line(c.out);
  if (c.exit_code != 0 || !gitx::is_object_id(id))
    return fail("'{}' is not a commit in {}", name, src.git_dir);
  return id;
}

namespace gitx {

Result<ObjectStore> object_store(const std::string& git_dir) {
  AW_TRY(std::string out,
         run_ok(at(git_dir, {"rev-parse", "--show-object-format", "--git-path", "objects"}), {}));
  size_t nl = out.find('\n');
  ObjectStore s{out.substr(0, nl), nl == std::string::npos ? "" : first_line(out.substr(nl + 1))};
  if (s.format != "sha1" && s.format != "sha256")
    return fail("{}: unknown object format '{}'", git_dir, s.format);
  if (s.objects.empty()) return fail("{}: no objects folder", git_dir);
  if (s.objects[0] != '/') s.objects = git_dir + "/" + s.objects;
  return s;
}

Result<std::string> common_dir(const std::string& git_dir) {
  AW_TRY(std::string out, run_ok(at(git_dir, {"rev-parse", "--git-common-dir"}), {}));
  std::string dir = first_line(out);
  if (dir.empty()) return fail("{}: no common git dir", git_dir);
  if (dir[0] != '/') dir = git_dir + "/" + dir;
  return dir;
}

}  // namespace gitx
}  // namespace aw
