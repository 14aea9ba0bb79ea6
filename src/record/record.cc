#include "record/record.h"

#include <nlohmann/json.hpp>

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

static PhaseRecord phase_from(const nlohmann::json& j) {
  PhaseRecord p;
  p.name = j.value("name", "");
  p.argv = j.value("argv", std::vector<std::string>{});
  p.started_at = j.value("started_at", "");
  p.duration_ms = j.value("duration_ms", int64_t{0});
  p.end = j.value("end", "");
  p.exit_code = j.value("exit_code", -1);
  p.signal = j.value("signal", 0);
  p.leftovers_killed = j.value("leftovers_killed", 0);
  p.leftover_names = j.value("leftover_names", std::vector<std::string>{});
  p.containment = j.value("containment", "");
  p.outcome = j.value("outcome", "");
  p.secrets = j.value("secrets", std::vector<std::string>{});
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
          {"runner_pid", u.runner_pid},
          {"runner_start", u.runner_start}};
}

UnitRecord unit_from_json(const nlohmann::json& j) {
  UnitRecord u;
  u.id = j.value("id", "");
  u.created_at = j.value("created_at", "");
  u.ended_at = j.value("ended_at", "");
  u.state = state_from(j.value("state", "failed"));
  u.reason = j.value("reason", "");
  u.repo = j.value("repo", "");
  u.source = j.value("source", "");
  u.agent = j.value("agent", "");
  u.profile = j.value("profile", "");
  u.prompt = j.value("prompt", "");
  u.base_ref = j.value("base_ref", "");
  u.base_commit = j.value("base_commit", "");
  u.isolation = j.value("isolation", "");
  u.sandbox = j.value("sandbox", "");
  u.run_dir = j.value("run_dir", "");
  u.work = j.value("work", "");
  u.forge_repo = j.value("forge_repo", "");
  u.issue = j.value("issue", int64_t{0});
  u.issue_title = j.value("issue_title", "");
  u.issue_url = j.value("issue_url", "");
  u.replay_of = j.value("replay_of", "");
  u.pull_request = j.value("pull_request", "");
  u.branch = j.value("branch", "");
  u.commit = j.value("commit", "");
  u.patch_stat = j.value("patch_stat", "");
  u.patch_files = j.value("patch_files", 0);
  u.omitted = j.value("omitted", std::vector<std::string>{});
  u.notes = j.value("notes", std::vector<std::string>{});
  u.verdict = j.value("verdict", "");
  u.refusals = j.value("refusals", std::vector<std::string>{});
  u.requests = j.value("requests", 0);
  if (j.contains("phases"))
    for (const auto& p : j["phases"]) u.phases.push_back(phase_from(p));
  u.runner_pid = j.value("runner_pid", int64_t{0});
  u.runner_start = j.value("runner_start", "");
  return u;
}

}  // namespace aw
