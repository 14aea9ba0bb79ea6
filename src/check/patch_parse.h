// The patch grammar: exactly what `git diff --cached --no-renames --no-ext-diff --no-textconv
// --full-index [--binary] <base>` prints, and nothing else. Parsing stops at the first line it
// does not understand and says why; the file records parsed so far are still returned.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "check/verdict.h"

namespace aw {

enum class FileChange { added, deleted, modified };

struct FileRecord {
  std::string path;  // unquoted bytes, as git printed them
  int line = 0;      // line of its `diff --git` header
  FileChange change = FileChange::modified;
  unsigned old_mode = 0, new_mode = 0;  // octal values (0100644...); 0 = absent side
  bool mode_changed = false;            // old mode/new mode headers
  bool binary = false;                  // "Binary files ... differ" or "GIT binary patch"
  bool binary_data = false;             // "GIT binary patch" (appliable)
  bool renamed = false, copied = false;
  size_t added = 0, removed = 0;
};

struct ParsedPatch {
  std::vector<FileRecord> files;
  std::vector<Refusal> refusals;  // grammar refusals (at most one: parsing stops there)
};

ParsedPatch parse_patch(std::string_view patch);

// Git's C-style quoting, undone: "a/caf\303\251" -> a/café. False on a malformed quote.
bool unquote_c(std::string_view quoted, std::string& out);

}  // namespace aw
