// Why each step: a check's name, its annotations and its log are written by whoever can change a
// workflow or post a status (on a pull request, its author): they are read here as data, only
// capped and redacted, and quoted by pr_task.cc in fences like review comments. The log's URL
// comes from GitHub's own redirect and is fetched without the token: the token never leaves the
// API's host, and a plain-HTTP URL is refused unless it is loopback (beast_transport's rule).
#include "forge/pr_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "check/redact.h"
#include "forge/link.h"
#include "forge/session.h"

namespace aw {

using nlohmann::json;

namespace {

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

int64_t int_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : 0;
}

// "https://host:port/path?query" -> ("https://host:port", "/path?query"); nullopt when it is not
// an absolute http(s) URL.
std::optional<std::pair<std::string, std::string>> split_url(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return std::nullopt;
  std::string s = url.substr(0, scheme);
  if (s != "https" && s != "http") return std::nullopt;
  size_t path = url.find('/', scheme + 3);
  if (path == scheme + 3) return std::nullopt;
  if (path == std::string::npos) return std::make_pair(url, std::string("/"));
  return std::make_pair(url.substr(0, path), url.substr(path));
}

std::string annotation_line(const json& a) {
  std::string where = text_of(a, "path");
  if (int64_t line = int_of(a, "start_line"); line > 0) where += fmt::format(":{}", line);
  std::string title = text_of(a, "title");
  return fmt::format("{} ({}) {}{}", where, text_of(a, "annotation_level"),
                     title.empty() ? "" : title + ": ", text_of(a, "message"));
}

// GET .../rules/branches/BASE, every page (GitHub lists the branch's active rules; the branch
// need not exist), read as the required checks of its rulesets.
Result<std::vector<RequiredCheck>> read_ruleset_checks(ForgeSession& s,
                                                       const std::string& base_ref) {
  std::string where =
      fmt::format("/repos/{}/rules/branches/{}?per_page=100", s.owner_repo, path_escape(base_ref));
  AW_TRY(ApiReply first, s.gh.call("GET", where));
  // A GitHub Enterprise Server older than rulesets has no such route, and there no ruleset
  // requires anything: protection's checks alone (or every failing check) decide, as before.
  if (first.status == 404) return std::vector<RequiredCheck>{};
  if (first.status < 200 || first.status >= 300)
    return fail("{}", s.gh.describe("GET", where, first));
  json rules = first.body;
  auto link = first.headers.find("link");
  if (auto next = link_next(link == first.headers.end() ? "" : link->second);
      next && rules.is_array()) {
    AW_TRY(std::string more, target_under(*next, s.forge.api_url));
    AW_TRY(json rest, s.gh.get_all(more));
    for (json& r : rest) rules.push_back(std::move(r));
  }
  return with_context(ruleset_checks_from_json(rules), "GET " + where);
}

}  // namespace

bool failing_conclusion(std::string_view c) {
  static constexpr std::array<std::string_view, 6> kFailing = {
      "failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale"};
  return std::find(kFailing.begin(), kFailing.end(), c) != kFailing.end();
}

Result<std::vector<FailingCheck>> failing_checks_from_json(const json& check_runs,
                                                           const json& combined) {
  std::vector<FailingCheck> out;
  std::set<std::string> names;
  if (!check_runs.is_null()) {
    if (!check_runs.is_object() || !check_runs.contains("check_runs") ||
        !check_runs["check_runs"].is_array())
      return fail("GitHub's check runs: expected an object with a check_runs list, got {}",
                  check_runs.type_name());
    for (const json& c : check_runs["check_runs"]) {
      if (!c.is_object()) continue;
      std::string name = text_of(c, "name");
      // The newest run of a name decides (GitHub lists the newest first).
      if (!names.insert("run:" + name).second) continue;
      if (text_of(c, "status") != "completed" || !failing_conclusion(text_of(c, "conclusion")))
        continue;
      FailingCheck f;
      f.kind = "check run";
      f.name = name;
      f.conclusion = text_of(c, "conclusion");
      f.id = int_of(c, "id");
      f.url = text_of(c, "details_url");
      if (c.contains("app") && c["app"].is_object()) {
        f.actions = text_of(c["app"], "slug") == "github-actions";
        f.app_id = int_of(c["app"], "id");
      }
      if (c.contains("output") && c["output"].is_object())
        f.summary = text_of(c["output"], "title");
      out.push_back(std::move(f));
    }
  }
  if (!combined.is_null()) {
    if (!combined.is_object() || !combined.contains("statuses") || !combined["statuses"].is_array())
      return fail("GitHub's combined status: expected an object with a statuses list, got {}",
                  combined.type_name());
    for (const json& s : combined["statuses"]) {
      std::string state = text_of(s, "state");
      std::string context = text_of(s, "context");
      if (!names.insert("status:" + context).second) continue;
      if (state != "failure" && state != "error") continue;
      FailingCheck f;
      f.kind = "status";
      f.name = context;
      f.conclusion = state;
      f.url = text_of(s, "target_url");
      f.summary = text_of(s, "description");
      out.push_back(std::move(f));
    }
  }
  return out;
}

Result<std::vector<RequiredCheck>> required_checks_from_json(const json& branch) {
  if (!branch.is_object())
    return fail("GitHub's branch: expected an object, got {}", branch.type_name());
  std::vector<RequiredCheck> out;
  if (!branch.contains("protected") || branch["protected"] != true) return out;
  if (!branch.contains("protection") || !branch["protection"].is_object()) return out;
  const json& p = branch["protection"];
  if (!p.contains("required_status_checks") || !p["required_status_checks"].is_object()) return out;
  const json& rsc = p["required_status_checks"];
  if (text_of(rsc, "enforcement_level") == "off") return out;
  std::set<std::string> seen;
  // `checks` names each context with its app; `contexts` (the legacy list) the same names
  // without one: a context that `checks` names keeps its app.
  if (rsc.contains("checks") && rsc["checks"].is_array())
    for (const json& c : rsc["checks"]) {
      std::string context = text_of(c, "context");
      if (context.empty()) continue;
      RequiredCheck r{context, -1};
      if (c.contains("app_id") && c["app_id"].is_number_integer())
        r.app_id = c["app_id"].get<int64_t>();
      seen.insert(context);
      out.push_back(std::move(r));
    }
  if (rsc.contains("contexts") && rsc["contexts"].is_array())
    for (const json& c : rsc["contexts"])
      if (c.is_string() && !c.get<std::string>().empty() &&
          seen.insert(c.get<std::string>()).second)
        out.push_back({c.get<std::string>(), -1});
  return out;
}

Result<std::vector<RequiredCheck>> ruleset_checks_from_json(const json& rules) {
  if (!rules.is_array())
    return fail("GitHub's rules for a branch: expected a list, got {}", rules.type_name());
  std::vector<RequiredCheck> out;
  for (const json& rule : rules) {
    if (text_of(rule, "type") != "required_status_checks") continue;
    if (!rule.contains("parameters") || !rule["parameters"].is_object()) continue;
    const json& p = rule["parameters"];
    if (!p.contains("required_status_checks") || !p["required_status_checks"].is_array()) continue;
    for (const json& c : p["required_status_checks"]) {
      std::string context = text_of(c, "context");
      if (context.empty()) continue;
      RequiredCheck r{context, -1};
      if (c.contains("integration_id") && c["integration_id"].is_number_integer())
        r.app_id = c["integration_id"].get<int64_t>();
      out.push_back(std::move(r));
    }
  }
  // Two rulesets may require the same check: once is enough.
  return required_union({}, out);
}

std::vector<RequiredCheck> required_union(std::vector<RequiredCheck> a,
                                          const std::vector<RequiredCheck>& b) {
  std::vector<RequiredCheck> out;
  auto add = [&](const RequiredCheck& r) {
    bool known = std::any_of(out.begin(), out.end(), [&](const RequiredCheck& o) {
      return o.context == r.context && o.app_id == r.app_id;
    });
    if (!known) out.push_back(r);
  };
  for (const RequiredCheck& r : a) add(r);
  for (const RequiredCheck& r : b) add(r);
  return out;
}

std::vector<FailingCheck> only_required(std::vector<FailingCheck> failing,
                                        const std::vector<RequiredCheck>& required) {
  if (required.empty()) return failing;
  auto is_required = [&](const FailingCheck& f) {
    return std::any_of(required.begin(), required.end(), [&](const RequiredCheck& r) {
      if (r.context != f.name) return false;
      // A rule that names an app is met by that app's check runs alone: a commit status of that
      // name is anyone's with statuses:write, and would ask for a follow-up it does not block.
      return r.app_id < 0 || (f.kind == "check run" && r.app_id == f.app_id);
    });
  };
  failing.erase(std::remove_if(failing.begin(), failing.end(),
                               [&](const FailingCheck& f) { return !is_required(f); }),
                failing.end());
  return failing;
}

std::string log_tail(std::string_view log, size_t cap, const std::vector<std::string>& literals,
                     bool* cut) {
  // Redacted whole first: a secret across the cut would otherwise leave its end unredacted.
  std::string all = redact_all(log, literals);
  if (cut) *cut = all.size() > cap;
  if (all.size() <= cap) return all;
  size_t from = all.size() - cap;
  size_t line = all.find('\n', from);
  if (line != std::string::npos && line + 1 < all.size()) {
    from = line + 1;
  } else {
    while (from < all.size() && (static_cast<unsigned char>(all[from]) & 0xC0) == 0x80) ++from;
  }
  return all.substr(from);
}

Result<std::vector<FailingCheck>> read_failing_checks(ForgeSession& s, const std::string& sha,
                                                      const std::string& base_ref, bool details) {
  std::string commit = fmt::format("/repos/{}/commits/{}", s.owner_repo, sha);
  AW_TRY(json runs, s.gh.get(commit + "/check-runs?filter=latest&per_page=100"));
  AW_TRY(json combined, s.gh.get(commit + "/status?per_page=100"));
  AW_TRY(std::vector<FailingCheck> failing,
         with_context(failing_checks_from_json(runs, combined), "GET " + commit));
  if (!failing.empty() && !base_ref.empty()) {
    // The branch's protection field, not .../protection/required_status_checks: that one needs
    // administration rights, which awaywork's token should not have; the branch's is readable
    // with read access. A check the base branch does not require blocks no merge: fixing it is a
    // person's call (a review or a command still asks for it).
    std::string where = fmt::format("/repos/{}/branches/{}", s.owner_repo, path_escape(base_ref));
    AW_TRY(json branch, s.gh.get(where));
    AW_TRY(std::vector<RequiredCheck> required,
           with_context(required_checks_from_json(branch), "GET " + where));
    // A ruleset's required checks block a merge as protection's do, and a repository may use
    // rulesets alone. Not asked when protection already requires every failing check: the union
    // would keep the same ones.
    if (required.empty() || only_required(failing, required).size() < failing.size()) {
      AW_TRY(std::vector<RequiredCheck> by_rulesets, read_ruleset_checks(s, base_ref));
      required = required_union(std::move(required), by_rulesets);
    }
    failing = only_required(std::move(failing), required);
  }
  if (!details) return failing;
  for (FailingCheck& f : failing) {
    if (f.kind != "check run" || f.id == 0) continue;
    std::string notes =
        fmt::format("/repos/{}/check-runs/{}/annotations?per_page=100", s.owner_repo, f.id);
    if (auto a = s.gh.get(notes); a && a->is_array()) {
      for (const json& one : *a) {
        if (f.annotations.size() >= kMaxAnnotations) {
          ++f.annotations_left_out;
          continue;
        }
        f.annotations.push_back(redact_all(annotation_line(one), {s.token}));
      }
    } else {
      f.annotations.push_back("(awaywork could not read this check's annotations)");
    }
    if (!f.actions) continue;
    // The job's log: a 302 to where GitHub keeps it, asked without the token.
    std::string target = fmt::format("/repos/{}/actions/jobs/{}/logs", s.owner_repo, f.id);
    auto r = s.gh.call("GET", target);
    std::string why;
    if (!r) {
      why = r.error().message;
    } else if (r->status != 302 || !r->headers.count("location")) {
      why = fmt::format("GitHub answered {} without a redirect to the log", r->status);
    } else if (auto where = split_url(r->headers.at("location")); !where) {
      why = "GitHub's redirect is not an http(s) URL";
    } else {
      TransportOptions topt;
      topt.api_url = where->first;
      topt.ca_file = s.forge.ca_file;
      auto t = beast_transport(topt);
      if (!t) {
        why = t.error().message;
      } else if (auto res = (*t)->send({"GET", where->second, {{"User-Agent", "awaywork"}}, ""});
                 !res) {
        why = res.error().message;
      } else if (res->status != 200) {
        why = fmt::format("the log's URL answered {}", res->status);
      } else {
        f.log_tail = log_tail(res->body, kMaxLogTail, {s.token}, &f.log_cut);
      }
    }
    if (!why.empty())
      f.log_tail = "(awaywork could not read this job's log: " + redact_all(why, {s.token}) + ")";
  }
  return failing;
}

}  // namespace aw
