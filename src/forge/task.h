// The task a unit from an issue is given, built by awaywork (never by pasting raw text): the
// repository's task text, one line naming the issue, its author and the author's trust, the count
// of comments left out (people not admitted), a notice that what follows is data, then the title,
// the body and the admitted comments, each cleaned for the prompt and in its own fence: the body
// and comments hold only what their rendered page shows (check/hidden_markup.h), and a note after
// the fence names what was removed ("2 hidden HTML comments, 3 invisible or control characters").
// Each piece and the whole are capped with a visible note; awaywork's own lines come before
// what the cap can take.
//
//   std::string prompt = build_issue_task(IssueTask{...});
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "forge/model.h"

namespace aw {

inline constexpr size_t kPieceMaxBytes = 64u << 10;
inline constexpr size_t kPieceMaxLines = 2000;
inline constexpr size_t kTaskMaxBytes = 160u << 10;

// Used when the repository's entry has no task:.
extern const char kDefaultIssueTask[];

struct IssueTask {
  std::string repo_task;  // "" = kDefaultIssueTask
  std::string repo;       // OWNER/REPO
  ForgeIssue issue;
  std::string author_trust;            // e.g. "admitted (role write)" or "not admitted (role read)"
  std::vector<ForgeComment> comments;  // the admitted ones, oldest first
  int left_out = 0;                    // comments by people not admitted
};

std::string build_issue_task(const IssueTask& t);

// For the prompt: ANSI escapes, control characters but tab and newline (CR LF -> LF), U+2028/2029
// and every default-ignorable code point (zero-width, bidi, soft hyphen, BOM, word joiners,
// variation selectors, the tag block, fillers: check/invisible.h, the rule of what awaywork posts)
// removed but one VS15/VS16 right after an emoji; invalid UTF-8 becomes U+FFFD. `removed` counts
// the escapes and characters taken out.
std::string clean_for_prompt(std::string_view in, size_t* removed = nullptr);

// A fence of backticks longer than any run of backticks in text, at least 4.
std::string fence_for(std::string_view text);

// One piece of forge text as the task quotes it: "HEADING:", the text cleaned for the prompt
// (and, when `markdown`, of what the forge's page hides), capped, in its own fence, with notes
// after the fence naming what was removed or cut. The pull request's task (pr_task.h) quotes
// review comments with it.
std::string quoted_piece(std::string_view heading, std::string_view raw, bool markdown);

// awaywork's own `head` whole, then as much of `quoted` as kTaskMaxBytes leaves room for, cut at
// a line end with every open fence closed and a note naming `what` ("issue", "pull request").
std::string join_capped(std::string head, std::string quoted, std::string_view what);

}  // namespace aw
