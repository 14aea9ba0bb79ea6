#include "plugin/source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "base/inert.h"
#include "base/json_read.h"
#include "check/redact.h"
#include "plugin/protocol.h"

namespace aw {

namespace {

// The forge's role words (forge/admission.h), the only trust a plugin may report.
const std::vector<std::string> kRoles = {"admin", "maintain", "write", "triage", "read", "none"};

bool id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' ||
         c == '#' || c == '-';
}

// A one-line field: not empty (unless allowed), no line end, capped.
Status one_line(const std::string& s, std::string_view field, size_t index, bool may_be_empty) {
  if (s.empty() && !may_be_empty) return fail("tasks[{}].{} is empty", index, field);
  if (s.size() > kSourceLineMax)
    return fail("tasks[{}].{} is longer than {} bytes", index, field, kSourceLineMax);
  if (s.find_first_of("\r\n") != std::string::npos)
    return fail("tasks[{}].{} holds a line end (it is one line)", index, field);
  return {};
}

Result<SourceTask> read_task(const JsonRead& t, size_t i) {
  AW_CHECK(t.is_object());
  SourceTask task;
  AW_TRY(task.id, t.str("id"));
  AW_TRY(task.title, t.str("title"));
  AW_TRY(task.text, t.str_or("text", ""));
  AW_TRY(task.author, t.str("author"));
  AW_TRY(task.trust, t.str("trust"));
  if (task.id.empty() || task.id.size() > kSourceIdMax ||
      !std::all_of(task.id.begin(), task.id.end(), id_char))
    return fail("tasks[{}].id is not 1 to {} of the characters A-Z a-z 0-9 . _ : # -", i,
                kSourceIdMax);
  AW_CHECK(one_line(task.title, "title", i, false));
  AW_CHECK(one_line(task.author, "author", i, false));
  if (task.text.size() > kSourceTextMax)
    return fail("tasks[{}].text is longer than {} KiB", i, kSourceTextMax >> 10);
  if (std::find(kRoles.begin(), kRoles.end(), task.trust) == kRoles.end())
    return fail("tasks[{}].trust is not one of {}", i, fmt::join(kRoles, ", "));
  return task;
}

}  // namespace

Result<std::vector<SourceTask>> source_tasks_from_result(const nlohmann::json& result,
                                                         std::string_view plugin,
                                                         const std::vector<std::string>& secrets) {
  auto refused = [&](const std::string& why) {
    return fail("source plugin {} answered no valid tasks ({}); none of its tasks is taken", plugin,
                inert_line(why));
  };
  JsonRead r(result, fmt::format("plugin {}'s tasks", plugin));
  auto items = r.array("tasks");
  if (!items) return refused(items.error().message);
  if (items->size() > kSourceMaxTasks)
    return refused(
        fmt::format("{} tasks, more than {} in one answer", items->size(), kSourceMaxTasks));
  std::vector<SourceTask> out;
  std::set<std::string> ids;
  for (size_t i = 0; i < items->size(); ++i) {
    auto task = read_task((*items)[i], i);
    if (!task) return refused(task.error().message);
    // Two tasks of one id would be one task run twice, or a guess which one is meant.
    if (!ids.insert(task->id).second)
      return refused(fmt::format("tasks[{}].id repeats an earlier task's id", i));
    // The plugin's own secrets (a value handed to it, or one its proxy added that the tracker
    // echoed back) never reach the agent's task. The id is a key and a file name, not to be
    // rewritten: an id holding a secret is garbage.
    if (redact_all(task->id, secrets) != task->id)
      return refused(fmt::format("tasks[{}].id holds a secret", i));
    task->title = redact_all(task->title, secrets);
    task->text = redact_all(task->text, secrets);
    task->author = redact_all(task->author, secrets);
    out.push_back(std::move(*task));
  }
  return out;
}

nlohmann::json tasks_params(std::string_view repo, const std::vector<std::string>& taken) {
  return {{"repo", std::string(repo)}, {"taken", taken}};
}

Result<std::vector<SourceTask>> fetch_source_tasks(const PluginConfig& plugin,
                                                   const PluginHost& host, std::string_view repo,
                                                   const std::vector<std::string>& taken) {
  // Every value of a secret this call reads (handed by value, or added by its proxy) is kept, so
  // that the reply and the error are redacted of it.
  std::vector<std::string> read;
  PluginHost lent = host;
  if (host.secret)
    lent.secret = [&read, &host](const std::string& name) -> Result<std::string> {
      AW_TRY(std::string value, host.secret(name));
      read.push_back(value);
      return value;
    };
  auto call = call_plugin(plugin, lent, kTasksMethod, tasks_params(repo, taken));
  if (!call) return fail("{}", redact_all(call.error().message, read));
  return source_tasks_from_result(call->result, plugin.name, read);
}

nlohmann::json task_done_params(const SourceTaskEnd& e) {
  return {{"task", e.task},
          {"repo", e.repo},
          {"unit", e.unit},
          {"state", e.state},
          {"reason", e.reason},
          {"verdict", e.verdict},
          {"pull_request", e.pull_request},
          {"branch", e.branch},
          {"commit", e.commit},
          {"ended_at", e.ended_at}};
}

}  // namespace aw
