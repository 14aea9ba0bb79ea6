// A pull request's current diff summary (issue 26): its files and the lines each adds and
// removes, from GET /repos/O/R/pulls/N/files, read a page of 100 at a time up to kMaxPullFiles
// (GitHub itself lists at most 3000). The file names are the pull request's author's text: the
// summary quotes them as data (pr_task.h puts it in a fence of its own), each on one line with
// its line breaks and tabs written out, never on a line of awaywork's.
//
//   AW_TRY(PullDiff d, read_pull_files(s.gh, "octo/web", 9));
//   quoted_piece("The files it changes", pull_files_text(d), false);
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/client.h"

namespace aw {

// At most this many files are read and listed: three pages of GitHub's largest.
inline constexpr int kMaxPullFiles = 300;

struct PullFile {
  std::string name, status, previous;  // previous: a renamed file's old name
  int64_t additions = 0, deletions = 0;
};

struct PullDiff {
  std::vector<PullFile> files;
  bool cut = false;                      // kMaxPullFiles were read and there may be more
  int64_t additions = 0, deletions = 0;  // of the files read
};

// Pure: one page of GET .../pulls/N/files.
Result<std::vector<PullFile>> pull_files_from_json(const nlohmann::json& j,
                                                   const std::string& what);

Result<PullDiff> read_pull_files(GitHub& gh, const std::string& owner_repo, int64_t number);

// Pure: awaywork's one line of counts ("3 files changed, 12 lines added and 4 removed" and, when
// cut, that the list stops), numbers only, for a line of awaywork's own.
std::string pull_diff_counts(const PullDiff& d);

// Pure: one line per file, `NAME (STATUS, +A -D)` or `NAME (renamed from OLD, +A -D)`, each name
// cleaned for the prompt, its line breaks and tabs written as \n, \r and \t, capped at 300 bytes.
// Data: quote it, never put it on a line of awaywork's.
std::string pull_files_text(const PullDiff& d);

}  // namespace aw
