// A source plugin's task as watch runs it (issue 28 item 1, docs/plugins.md#tasks-source): the
// author's trust as the plugin reports it, capped by the repository's own admission rules, and
// the agent's task built by awaywork around the plugin's words, fenced and cleaned as an issue's.
//
//   SourceAdmission adm = admit_source_task(task, repo.trust, repo.stop_after, now, plugin);
//   if (adm.admitted) write_file(prompt, build_source_task(plugin, task, adm.reason));
//
// The plugin room reads and checks the plugin's reply (plugin/source.h); the quoting rules are the
// forge's (forge/task.h), which watch may use and the plugin room may not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.h"
#include "plugin/source.h"

namespace aw {

struct SourceAdmission {
  bool admitted = false;
  std::string reason;  // "role write as source plugin tracker reports it", "... not admitted ..."
};

// The plugin's word on the author, capped by the repository's own rules (`trust`, `stop_after`):
// the reported role is admitted only when trust.roles lists it, as a forge collaborator's role
// would be, and nothing is admitted past stop_after. trust.users and trust.bots never admit a
// plugin's author: they are forge logins, and a tracker's name for someone is another namespace
// (a tracker account called like the owner's login is not the owner). So a plugin can lower an
// author's trust, never raise it above what the repository gives that role on its own forge.
SourceAdmission admit_source_task(const SourceTask& task, const TrustConfig& trust,
                                  int64_t stop_after, int64_t now, std::string_view plugin);

// Used for a source task's unit: awaywork's words before the quoted task.
extern const char kDefaultSourceTask[];

// The agent's task, built by awaywork: its own words (the default task, the plugin's config name,
// the admission's reason), a notice that what follows is data, then the task's id, author, title
// and text each cleaned for the prompt (escapes, bidi and invisible characters removed, every
// marker form defused, hidden markup of the text removed) in a fence of its own that no backtick
// run inside can close, capped like an issue's.
std::string build_source_task(std::string_view plugin, const SourceTask& task,
                              std::string_view admission);

}  // namespace aw
