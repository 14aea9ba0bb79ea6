#include "isolate/probe/probe_report.h"

#include <dirent.h>
#include <fmt/format.h>

#include <algorithm>

#include "base/json_read.h"
#include "config/paths.h"

namespace aw {

namespace {

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string n = e->d_name; n != "." && n != "..") out.push_back(n);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void probe_state_dir(const std::string& state, const std::string& own_run, SandboxPlan& plan,
                     ProbeTargets& t) {
  std::erase(plan.hidden, state);
  for (const auto& n : entries(state))
    if (n != "runs") t.secrets.emplace_back("hidden.state:" + n, state + "/" + n);
  int others = 0;
  for (const auto& n : entries(state + "/runs"))
    if (state + "/runs/" + n != own_run && others++ < 3)
      t.secrets.emplace_back("hidden.other_unit", state + "/runs/" + n);
  // The folders above the unit's own ones are in the view only as the way to them: read-only,
  // wherever they are (docs/sandbox.md), also when the state folder is under /tmp and they are
  // made in the sandbox's private /tmp.
  t.writes.emplace_back("write.state", state);
  t.writes.emplace_back("write.runs", state + "/runs");
  if (!own_run.empty()) t.writes.emplace_back("write.run_folder", own_run);
}

ProbeHostOptions probe_host_options(const Config& cfg) {
  ProbeHostOptions o;
  o.owner_home = home_dir();
  for (const auto& [name, repo] : cfg.repos)
    if (!repo.path.empty()) {
      o.source_repo = repo.path;
      break;
    }
  o.env_file = default_config_dir() + "/env";
  o.database = state_dir_of(cfg) + "/awaywork.db";
  return o;
}

namespace {

// The inside's JSON array of probes, or an Error quoting what it printed instead.
Result<nlohmann::json> probe_answer(const IsolatedResult& r) {
  auto results = nlohmann::json::parse(r.out, nullptr, false);
  if (results.is_array()) return results;
  return fail("the inside did not answer ({}): {}{}", describe(r.phase), r.out.substr(0, 2000),
              r.err.substr(0, 2000));
}

// The probes as the text form prints them, read through JsonRead: the answer comes from inside
// the isolation, and a wrongly typed field is an Error naming it, never a throw.
Result<std::vector<ProbeLine>> probe_lines(const nlohmann::json& results) {
  nlohmann::json doc = {{"probes", results}};
  JsonRead r(doc, "the inside's answer");
  AW_TRY(std::vector<JsonRead> probes, r.array("probes"));
  std::vector<ProbeLine> out;
  for (const JsonRead& p : probes) {
    ProbeLine line;
    AW_TRY(line.ok, p.bool_or("ok", false));
    AW_TRY(line.name, p.str_or("name", ""));
    AW_TRY(line.detail, p.str_or("detail", ""));
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

Result<ProbeReport> read_probe_report(const std::string& heading, nlohmann::json header,
                                      const Result<IsolatedResult>& run,
                                      const std::function<void(nlohmann::json&)>& more) {
  if (!run) return tl::make_unexpected(run.error());
  AW_TRY(nlohmann::json results, probe_answer(*run));
  if (more) more(results);
  ProbeReport report;
  AW_TRY(report.lines, probe_lines(results));
  for (const ProbeLine& p : report.lines) report.leaks += p.ok ? 0 : 1;
  report.heading = heading;
  report.sandbox_note = run->sandbox_note;
  report.header = std::move(header);
  report.results = std::move(results);
  return report;
}

}  // namespace aw
