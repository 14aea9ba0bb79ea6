#include "record/record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/json_read.h"

namespace aw {

const char* to_string(UnitState s) {
  switch (s) {
    case UnitState::running:
      return "running";
    case UnitState::done:
      return "done";
    case UnitState::failed:
      return "failed";
    case UnitState::timed_out:
      return "timed_out";
    case UnitState::lost:
      return "lost";
    case UnitState::interrupted:
      return "interrupted";
    case UnitState::refused:
      return "refused";
    case UnitState::skipped:
      return "skipped";
  }
  return "unknown";
}

static UnitState state_from(const std::string& s) {
  for (auto v : {UnitState::running, UnitState::done, UnitState::failed, UnitState::timed_out,
                 UnitState::lost, UnitState::interrupted, UnitState::refused, UnitState::skipped})
    if (s == to_string(v)) return v;
  return UnitState::failed;
}

static nlohmann::json phase_json(const PhaseRecord& p) {
  return {{"name", p.name},
          {"argv", p.argv},
          {"started_at", p.started_at},
          {"duration_ms", p.duration_ms},
          {"end", p.end},
          {"exit_code", p.exit_code},
          {"signal", p.signal},
          {"leftovers_killed", p.leftovers_killed},
          {"leftover_names", p.leftover_names},
          {"containment", p.containment},
          {"outcome", p.outcome},
          {"secrets", p.secrets}};
}

// Every field read through JsonRead (base/json_read.h): a record may come from an artifact
// another job wrote, and nlohmann's value() throws on a wrongly typed field.
static Result<PhaseRecord> phase_from(const JsonRead& r) {
  PhaseRecord p;
  AW_CHECK(r.is_object());
  AW_TRY(p.name, r.str_or("name", ""));
  AW_TRY(p.argv, r.strings_or("argv"));
  AW_TRY(p.started_at, r.str_or("started_at", ""));
  AW_TRY(p.duration_ms, r.int_or("duration_ms", int64_t{0}));
  AW_TRY(p.end, r.str_or("end", ""));
  AW_TRY(p.exit_code, r.int_or("exit_code", -1));
  AW_TRY(p.signal, r.int_or("signal", 0));
  AW_TRY(p.leftovers_killed, r.int_or("leftovers_killed", 0, 0));
  AW_TRY(p.leftover_names, r.strings_or("leftover_names"));
  AW_TRY(p.containment, r.str_or("containment", ""));
  AW_TRY(p.outcome, r.str_or("outcome", ""));
  AW_TRY(p.secrets, r.strings_or("secrets"));
  return p;
}

nlohmann::json to_json(const UnitRecord& u) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : u.phases) phases.push_back(phase_json(p));
  return {{"id", u.id},
          {"created_at", u.created_at},
          {"ended_at", u.ended_at},
          {"state", to_string(u.state)},
          {"reason", u.reason},
          {"repo", u.repo},
          {"source", u.source},
          {"agent", u.agent},
          {"profile", u.profile},
          {"prompt", u.prompt},
          {"base_ref", u.base_ref},
          {"base_commit", u.base_commit},
          {"isolation", u.isolation},
          {"sandbox", u.sandbox},
          {"run_dir", u.run_dir},
          {"work", u.work},
          {"forge_repo", u.forge_repo},
          {"issue", u.issue},
          {"issue_title", u.issue_title},
          {"issue_url", u.issue_url},
          {"replay_of", u.replay_of},
          {"pull_request", u.pull_request},
          {"branch", u.branch},
          {"commit", u.commit},
          {"patch_stat", u.patch_stat},
          {"patch_files", u.patch_files},
          {"omitted", u.omitted},
          {"verdict", u.verdict},
          {"refusals", u.refusals},
          {"requests", u.requests},
          {"notes", u.notes},
          {"phases", phases},
          {"current_phase", u.current_phase
                                ? nlohmann::json{{"name", u.current_phase->name},
                                                 {"argv", u.current_phase->argv},
                                                 {"started_at", u.current_phase->started_at}}
                                : nlohmann::json()},
          {"runner_pid", u.runner_pid},
          {"runner_start", u.runner_start}};
}

Result<UnitRecord> unit_from_json(const nlohmann::json& j, const std::string& what) {
  JsonRead r(j, what);
  AW_CHECK(r.is_object());
  UnitRecord u;
  AW_TRY(u.id, r.str_or("id", ""));
  AW_TRY(u.created_at, r.str_or("created_at", ""));
  AW_TRY(u.ended_at, r.str_or("ended_at", ""));
  AW_TRY(std::string state, r.str_or("state", "failed"));
  u.state = state_from(state);
  AW_TRY(u.reason, r.str_or("reason", ""));
  AW_TRY(u.repo, r.str_or("repo", ""));
  AW_TRY(u.source, r.str_or("source", ""));
  AW_TRY(u.agent, r.str_or("agent", ""));
  AW_TRY(u.profile, r.str_or("profile", ""));
  AW_TRY(u.prompt, r.str_or("prompt", ""));
  AW_TRY(u.base_ref, r.str_or("base_ref", ""));
  AW_TRY(u.base_commit, r.str_or("base_commit", ""));
  AW_TRY(u.isolation, r.str_or("isolation", ""));
  AW_TRY(u.sandbox, r.str_or("sandbox", ""));
  AW_TRY(u.run_dir, r.str_or("run_dir", ""));
  AW_TRY(u.work, r.str_or("work", ""));
  AW_TRY(u.forge_repo, r.str_or("forge_repo", ""));
  AW_TRY(u.issue, r.int_or("issue", int64_t{0}, int64_t{0}));
  AW_TRY(u.issue_title, r.str_or("issue_title", ""));
  AW_TRY(u.issue_url, r.str_or("issue_url", ""));
  AW_TRY(u.replay_of, r.str_or("replay_of", ""));
  AW_TRY(u.pull_request, r.str_or("pull_request", ""));
  AW_TRY(u.branch, r.str_or("branch", ""));
  AW_TRY(u.commit, r.str_or("commit", ""));
  AW_TRY(u.patch_stat, r.str_or("patch_stat", ""));
  AW_TRY(u.patch_files, r.int_or("patch_files", 0, 0));
  AW_TRY(u.omitted, r.strings_or("omitted"));
  AW_TRY(u.notes, r.strings_or("notes"));
  AW_TRY(u.verdict, r.str_or("verdict", ""));
  AW_TRY(u.refusals, r.strings_or("refusals"));
  AW_TRY(u.requests, r.int_or("requests", 0, 0));
  AW_TRY(std::vector<JsonRead> phases, r.array_or("phases"));
  for (const JsonRead& p : phases) {
    AW_TRY(PhaseRecord phase, phase_from(p));
    u.phases.push_back(std::move(phase));
  }
  AW_TRY(std::optional<JsonRead> current, r.object_or("current_phase"));
  if (current) {
    AW_TRY(u.current_phase, phase_from(*current));
  }
  AW_TRY(u.runner_pid, r.int_or("runner_pid", int64_t{0}, int64_t{0}));
  AW_TRY(u.runner_start, r.str_or("runner_start", ""));
  return u;
}

bool is_follow_up(const std::vector<std::string>& notes) {
  return std::any_of(notes.begin(), notes.end(),
                     [](const std::string& n) { return n.starts_with(kFollowUpNote); });
}

}  // namespace aw
