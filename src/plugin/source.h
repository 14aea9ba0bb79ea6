// Source plugins (issue 28 item 1, docs/plugins.md#tasks-source): the owner's code that brings
// tasks from a tracker other than the forge. `awaywork watch` calls its `tasks` method each poll
// and its `task_done` method when a task's unit has ended (watch/watcher_source.cc).
//
// Everything a source plugin says is hostile data, as an issue is. Its reply is read strictly and
// fails closed: one task that is not as documented (a missing field, an id with characters outside
// its set, a trust word that is not a role) makes the whole reply no tasks, with one error naming
// the plugin and what was wrong, never a guess at what it meant. Each task's author trust is the
// plugin's word capped by the repository's own admission rules (admit_source_task), and its text
// reaches the agent only cleaned and in fences of its own, under awaywork's own words, exactly as
// an issue's does (build_source_task).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "config/config.h"
#include "plugin/call.h"

namespace aw {

inline constexpr std::string_view kTasksMethod = "tasks";
inline constexpr std::string_view kTaskDoneMethod = "task_done";
// More tasks than this in one reply is garbage (a poll brings a few): the reply is refused.
inline constexpr size_t kSourceMaxTasks = 100;
// A task's id is a state database key and a file name: 1 to this many of [A-Za-z0-9._:#-].
inline constexpr size_t kSourceIdMax = 100;
// At most this many taken ids are sent back with `tasks` (a hint: watch runs each id once anyway).
inline constexpr size_t kSourceTakenHint = 1000;
// A title, an author: one line each, at most this many bytes (the text is capped by the task).
inline constexpr size_t kSourceLineMax = 1000;
// A task's text: at most this many bytes, as much as the task quotes of one piece (forge/task.h's
// kPieceMaxBytes); a longer text is garbage, not cut.
inline constexpr size_t kSourceTextMax = 64u << 10;

// One task as the plugin reported it (every field its words, unchecked but for shape).
struct SourceTask {
  std::string id;      // [A-Za-z0-9._:#-]{1,100}: unique within the plugin, stable across polls
  std::string title;   // one line
  std::string text;    // markdown, as the tracker holds it
  std::string author;  // the tracker's name for who wrote it
  std::string trust;  // the author's role as the plugin says: admin maintain write triage read none
};

// The tasks of a `tasks` reply's result ({"tasks": [{"id", "title", "text", "author", "trust"},
// ...]}); an Error naming the plugin and the first thing wrong, and then no task at all. Each
// title, text and author is redacted of secrets (the values of the plugin's secrets the call read,
// and secret-shaped tokens, check/redact.h); an id holding one refuses the reply.
Result<std::vector<SourceTask>> source_tasks_from_result(
    const nlohmann::json& result, std::string_view plugin,
    const std::vector<std::string>& secrets = {});

// The `tasks` call's params: which repository the tasks are for (its repos: name) and the ids of
// the tasks the plugin's earlier answers brought that watch has taken (it may leave them out).
nlohmann::json tasks_params(std::string_view repo, const std::vector<std::string>& taken);

// Calls the plugin's `tasks` and reads its reply: an Error when the call failed or the reply was
// garbage (no tasks then, fail closed). The tasks and the Error are redacted of every secret value
// host.secret gave for the call (its by-value secrets and those its egress proxy adds).
Result<std::vector<SourceTask>> fetch_source_tasks(const PluginConfig& plugin,
                                                   const PluginHost& host, std::string_view repo,
                                                   const std::vector<std::string>& taken);

// How a task's unit ended, as `task_done` tells the plugin (docs/plugins/task_done.schema.json):
// the unit's own record's words ("" for what it did not reach).
struct SourceTaskEnd {
  std::string task, repo, unit;
  std::string state;   // done failed timed_out lost interrupted refused skipped
  std::string reason;  // why not done (redacted, as the record holds it); "" when done
  std::string verdict, pull_request, branch, commit, ended_at;
};
nlohmann::json task_done_params(const SourceTaskEnd& end);

}  // namespace aw
