// Text awaywork posts on GitLab (a merge request's title and description, a note), made inert for
// GitLab Flavored Markdown. GitHub's sanitizer (check/sanitize.h) runs first: links, HTML,
// hidden text, @mentions (GitLab's `@user`, `@group` and `@all` alike) and references after a
// closing keyword. Then what only GitLab acts on:
//   - a quick action: a line whose first non-blank character is `/` (`/close`, `/merge`,
//     `/approve`, `/assign`, in any case) runs as the poster, i.e. as awaywork. Every such line,
//     in code blocks too (a fence GitLab and awaywork read differently must not free one), starts
//     with `&#47;` instead, which GitLab renders as `/` and never runs;
//   - GitLab's references outside code: `~label`, `~"two words"`, `!N` (merge requests),
//     `%milestone`, `$N` (snippets), `&N` (epics), also after a project path (`grp/app!3`, and a
//     cross-project issue `grp/sub/app#4`):
//     wrapped in <code>…</code>, shown, never linked nor notified.
//
//   std::string body = gitlab_inert(sanitize_text(raw, o));
#pragma once

#include <string>
#include <string_view>

namespace aw {

std::string gitlab_inert(std::string_view sanitized);

// True when no line of text is a quick action (the rule gitlab_inert keeps; for tests and checks).
bool has_quick_action(std::string_view text);

}  // namespace aw
