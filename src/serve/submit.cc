#include "serve/submit.h"

#include <nlohmann/json.hpp>
#include <set>

#include "base/random.h"

namespace aw {

namespace {

using nlohmann::json;

template <class M>
std::string names_of(const M& m) {
  std::string out;
  for (const auto& [k, _] : m) out += (out.empty() ? "" : ", ") + k;
  return out.empty() ? "none" : out;
}

Result<std::string> text_field(const json& j, const char* key, bool required, size_t cap) {
  if (!j.contains(key)) {
    if (required) return fail("the field \"{}\" is required (a string)", key);
    return std::string();
  }
  if (!j[key].is_string()) return fail("the field \"{}\" must be a string", key);
  std::string v = j[key];
  if (required && v.empty()) return fail("the field \"{}\" must not be empty", key);
  if (v.size() > cap) return fail("the field \"{}\" is longer than {} bytes", key, cap);
  if (v.find('\0') != std::string::npos) return fail("the field \"{}\" holds a NUL byte", key);
  return v;
}

// The shape only (NAME#N, N a whole number); `run --issue` resolves the repository and the
// issue, and its refusal (no such repo, not a forge repository) is the caller's 400. NAME may hold
// slashes: a GitLab project's path is GROUP/SUBGROUP/PROJECT, and `run --issue` takes GitLab's
// issues as GitHub's.
Status check_issue_ref(const std::string& ref) {
  size_t hash = ref.rfind('#');
  std::string_view num = hash == std::string::npos ? "" : std::string_view(ref).substr(hash + 1);
  bool digits = !num.empty() && num.size() <= 15 &&
                num.find_first_not_of("0123456789") == std::string_view::npos;
  if (hash == 0 || !digits || num.front() == '0' ||
      ref.find_first_of(" \t\r\n") != std::string::npos)
    return fail(
        "the field \"issue\" must be NAME#N, OWNER/REPO#N or GROUP/PROJECT#N (a repos: name, "
        "or its github: or gitlab: path, then the issue's number), e.g. \"web#12\" or "
        "\"grp/sub/app#3\"");
  return {};
}

}  // namespace

Result<SubmitRequest> parse_submit(const std::string& body, const Config& cfg) {
  auto j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("the body must be a JSON object like {{\"repo\": \"NAME\", \"prompt\": \"TASK\"}}");
  static const std::set<std::string> known = {"repo",    "prompt", "issue",       "agent",
                                              "profile", "base",   "unit_seconds"};
  for (const auto& [k, _] : j.items())
    if (!known.count(k))
      return fail(
          "unknown field \"{}\"; a unit takes repo and prompt (or issue), agent, profile, "
          "base, unit_seconds",
          k.substr(0, 40));
  SubmitRequest r;
  if (j.contains("issue")) {
    if (j.contains("repo") || j.contains("prompt"))
      return fail(
          "give \"issue\" alone (the task is built from the issue and its repository) or "
          "\"repo\" and \"prompt\", not both");
    AW_TRY(r.issue, text_field(j, "issue", true, 400));
    AW_CHECK(check_issue_ref(r.issue));
  } else {
    AW_TRY(r.repo, text_field(j, "repo", true, 4096));
    AW_TRY(r.prompt, text_field(j, "prompt", true, 1u << 20));
  }
  AW_TRY(r.agent, text_field(j, "agent", false, 200));
  AW_TRY(r.profile, text_field(j, "profile", false, 200));
  AW_TRY(r.base, text_field(j, "base", false, 1000));
  if (!r.agent.empty() && !cfg.agents.count(r.agent))
    return fail("no agent \"{}\" in the config; agents: {}", r.agent, names_of(cfg.agents));
  if (!r.profile.empty() && !cfg.profiles.count(r.profile))
    return fail("no profile \"{}\" in the config; profiles: {}", r.profile, names_of(cfg.profiles));
  if (j.contains("unit_seconds")) {
    const auto& v = j["unit_seconds"];
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 7 * 24 * 3600)
      return fail("the field \"unit_seconds\" must be a whole number from 1 to 604800");
    r.unit_seconds = v.get<int>();
  }
  return r;
}

std::vector<std::string> run_args(const SubmitRequest& r, const std::string& prompt_file) {
  std::vector<std::string> a = {"run"};
  if (!r.issue.empty())
    a.push_back("--issue=" + r.issue);
  else
    a.insert(a.end(), {"--repo=" + r.repo, "--prompt-file=" + prompt_file});
  if (!r.agent.empty()) a.push_back("--agent=" + r.agent);
  if (!r.profile.empty()) a.push_back("--profile=" + r.profile);
  if (!r.base.empty()) a.push_back("--base=" + r.base);
  if (r.unit_seconds) a.push_back(fmt::format("--unit-seconds={}", *r.unit_seconds));
  a.push_back("--json");
  return a;
}

Result<std::string> new_prompt_name() {
  AW_TRY(std::string hex, random_hex(16));
  return hex + ".txt";
}

}  // namespace aw
