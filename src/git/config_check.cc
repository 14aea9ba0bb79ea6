// What a git that talks to a remote reads of its git dir's config (DESIGN.md invariants 8, 10).
// The mirror and the publish scratch are awaywork's own git dirs, written from nothing
// (minimal_config), yet the git that fetches and pushes with the forge credential reads their
// config, and some keys there outrank anything the command line can pin: http.<url>.proxy and
// remote.<url>.proxy beat -c http.proxy= (git takes the most specific URL match), a
// url.<x>.insteadOf cannot be unset from the command line at all, core.gitProxy takes the first
// match. One of those in the mirror's config sent the next fetch's token to a proxy. So before
// each such git the config is read by git itself (every file it would read: includes followed,
// a commondir's config, the worktree config) and must hold exactly what awaywork writes; any other
// entry means something else changed awaywork's git dir, and nothing is sent with it.
#include <algorithm>
#include <set>

#include "base/inert.h"
#include "git/git_internal.h"

namespace aw::gitx {

namespace {

// "section.key\nvalue" (as `git config --list -z` prints an entry) for every entry that
// minimal_config writes into awaywork's bare git dirs, of either object format.
std::set<std::string> own_entries() {
  std::set<std::string> out;
  for (const char* format : {"sha1", "sha256"}) {
    std::string text = minimal_config(true, format), section;
    for (size_t pos = 0; pos < text.size();) {
      size_t nl = std::min(text.find('\n', pos), text.size());
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      size_t eq = line.find(" = ");
      if (line.starts_with("[") && line.ends_with("]"))
        section = line.substr(1, line.size() - 2);
      else if (line.starts_with("\t") && eq != std::string::npos)
        out.insert(section + "." + line.substr(1, eq - 1) + "\n" + line.substr(eq + 3));
    }
  }
  return out;
}

// A key or file name for the message: the planter chose it, so control characters (a terminal's
// escapes, C1, bidi) are made visible (base/inert.h) and a long one is cut.
std::string shown(const std::string& s) {
  std::string out = inert_line(std::string_view(s).substr(0, 200));
  return s.size() > 200 ? out + "..." : out;
}

}  // namespace

Status check_own_config(const std::string& git_dir) {
  static const std::set<std::string> own = own_entries();
  static const std::set<std::string> own_keys = [] {
    std::set<std::string> keys;
    for (const std::string& e : own) keys.insert(e.substr(0, e.find('\n')));
    return keys;
  }();
  // Not --local: that reads one file and skips includes; git's fetch reads them all.
  AW_TRY(std::string out,
         with_context(
             run_ok(at(git_dir, {"config", "--list", "-z", "--show-scope", "--show-origin"}), {}),
             "reading the config of " + git_dir));
  std::vector<std::string> fields = split_z(out);  // scope, origin, "key\nvalue" (or "key")
  if (fields.size() % 3 != 0)
    return fail("reading the config of {}: git config printed {} fields, not triples", git_dir,
                fields.size());
  std::vector<std::string> foreign;
  for (size_t i = 0; i < fields.size(); i += 3) {
    const std::string &scope = fields[i], &origin = fields[i + 1], &entry = fields[i + 2];
    if (scope == "command" || own.count(entry)) continue;  // awaywork's -c options, its file
    // The key (its subsection is the planter's text: a URL, say), never the value, which may be
    // a header or a secret of someone else's.
    std::string key = entry.substr(0, entry.find('\n'));
    std::string file = origin.starts_with("file:") ? origin.substr(5) : origin;
    std::string item =
        fmt::format("{}{} in {}", shown(key), own_keys.count(key) ? " (not awaywork's value)" : "",
                    shown(file));
    if (std::find(foreign.begin(), foreign.end(), item) == foreign.end()) foreign.push_back(item);
  }
  if (foreign.empty()) return {};
  std::string list;
  for (size_t i = 0; i < foreign.size() && i < 5; ++i) list += (i ? "; " : "") + foreign[i];
  if (foreign.size() > 5) list += fmt::format("; and {} more", foreign.size() - 5);
  return fail(
      "{} is awaywork's own git dir, but its config holds what awaywork never writes there "
      "({}). Such a setting can send a fetch or push, and the credential with it, "
      "somewhere else (a proxy, a rewritten URL, extra headers), so nothing is fetched or pushed "
      "with it. Something other than awaywork changed this folder: find out what, then remove "
      "the folder to have it made afresh",
      git_dir, list);
}

}  // namespace aw::gitx
