// Continuing an agent's session from an earlier unit of the same pull request (issue 26 item 6,
// docs/pull-requests.md#continuing-the-agents-session): which built-in providers can, where
// their CLI keeps its session files under the unit's HOME, and the argv that resumes one. Pure:
// the copying (owner-only, capped, no link followed) is the unit's (unit/session_keep.h).
//
//   if (auto f = session_files(spec)) ...       // claude: .claude/projects
//   AW_TRY(argv, with_resume(spec, argv, id));  // claude ... --resume ID
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "provider/provider.h"

namespace aw {

// Where a provider keeps its sessions under the unit's HOME.
struct SessionFiles {
  std::string root;  // relative to HOME: ".claude/projects", ".codex/sessions"
  int depth = 0;     // how many folders below root a session file sits (claude 1, codex 3)
};

// nullopt: the provider cannot continue a session (cursor, gemini, opencode, command).
std::optional<SessionFiles> session_files(const ProviderSpec& spec);

// Whether rel ('/'-separated, relative to root) names one of the provider's session files by its
// shape alone: claude `<project>/<uuid>.jsonl`, codex `YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.
// The content is never read for this: a session file is the agent's, and hostile.
bool is_session_file(const ProviderSpec& spec, const std::string& rel);

// Where a kept session file (rel, as is_session_file took it) goes in the next unit's HOME,
// relative to root. Claude Code files a session under a folder named after the working folder's
// path, and the next unit's clone has another path: the file moves to the new clone's folder.
std::string session_place(const ProviderSpec& spec, const std::string& rel,
                          const std::string& clone);

// The session id a kept file's name carries (the uuid; "" when rel is no session file).
std::string session_id(const ProviderSpec& spec, const std::string& rel);

// argv made to continue session id: claude `--resume ID` appended; codex's trailing prompt "-"
// (read from stdin) becomes `resume ID -` after exec's own options. An Error when the argv has
// not that shape, or the provider cannot resume, or the id is not a uuid.
Result<Argv> with_resume(const ProviderSpec& spec, Argv argv, const std::string& id);

}  // namespace aw
