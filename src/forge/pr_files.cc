// Why: a file name is the pull request author's text (git allows a line break in it, and any
// invisible character), so it is written on one line with its breaks spelled out and quoted only
// inside the task's fence (pr_task.cc); the list is capped so that a pull request of thousands of
// files costs at most three requests and a bounded piece of the task.
#include "forge/pr_files.h"

#include <fmt/format.h>

#include "forge/json_fields.h"
#include "forge/task.h"

namespace aw {

using forge_field::integer;
using forge_field::object;
using forge_field::str;
using nlohmann::json;

Result<std::vector<PullFile>> pull_files_from_json(const json& j, const std::string& what) {
  if (!j.is_array()) return fail("{}: expected a list, got {}", what, j.type_name());
  std::vector<PullFile> out;
  for (const json& f : j) {
    AW_CHECK(object(f, what + " []"));
    PullFile p;
    AW_TRY(p.name, str(f, "filename", what + " []", true));
    AW_TRY(p.status, str(f, "status", what + " []", false));
    AW_TRY(p.previous, str(f, "previous_filename", what + " []", false));
    AW_TRY(p.additions, integer(f, "additions", what + " []"));
    AW_TRY(p.deletions, integer(f, "deletions", what + " []"));
    out.push_back(std::move(p));
  }
  return out;
}

Result<PullDiff> read_pull_files(GitHub& gh, const std::string& owner_repo, int64_t number) {
  constexpr int kPage = 100;
  PullDiff d;
  for (int page = 1; static_cast<int>(d.files.size()) < kMaxPullFiles; ++page) {
    std::string target = fmt::format("/repos/{}/pulls/{}/files?per_page={}&page={}", owner_repo,
                                     number, kPage, page);
    AW_TRY(json j, gh.get(target));
    AW_TRY(auto files, pull_files_from_json(j, "GET " + target));
    for (PullFile& f : files) {
      if (static_cast<int>(d.files.size()) >= kMaxPullFiles) {
        d.cut = true;
        break;
      }
      d.additions += f.additions;
      d.deletions += f.deletions;
      d.files.push_back(std::move(f));
    }
    if (static_cast<int>(files.size()) < kPage) return d;  // the last page
  }
  d.cut = true;  // the cap was reached on a full page: GitHub may list more
  return d;
}

std::string pull_diff_counts(const PullDiff& d) {
  std::string out = fmt::format("{} file{} changed, {} line{} added and {} removed", d.files.size(),
                                d.files.size() == 1 ? "" : "s", d.additions,
                                d.additions == 1 ? "" : "s", d.deletions);
  if (d.cut)
    out += fmt::format(" (in the first {} files listed; the pull request may change more)",
                       kMaxPullFiles);
  return out;
}

namespace {

// One name on one line: breaks and tabs spelled out before cleaning (so they survive as text),
// then cleaned and capped at a character's start.
std::string name_line(const std::string& raw) {
  std::string spelled;
  for (char c : raw) {
    if (c == '\n')
      spelled += "\\n";
    else if (c == '\r')
      spelled += "\\r";
    else if (c == '\t')
      spelled += "\\t";
    else
      spelled += c;
  }
  std::string s = clean_for_prompt(spelled);
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';  // none should be left; never a new line
  if (s.size() > 300) {
    size_t at = 300;
    while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
    s = s.substr(0, at) + "...";
  }
  return s;
}

}  // namespace

std::string pull_files_text(const PullDiff& d) {
  std::string out;
  for (const PullFile& f : d.files) {
    std::string what = f.status == "renamed" && !f.previous.empty()
                           ? "renamed from " + name_line(f.previous)
                           : name_line(f.status.empty() ? "changed" : f.status);
    out += fmt::format("{} ({}, +{} -{})\n", name_line(f.name), what, f.additions, f.deletions);
  }
  if (d.cut) out += fmt::format("(The list stops at {} files.)\n", kMaxPullFiles);
  return out;
}

}  // namespace aw
