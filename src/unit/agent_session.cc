// The agent phase's provider side: launch, inference proxy, lent login, events (agent_session.h).
#include "unit/agent_session.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "check/redact.h"
#include "config/paths.h"
#include "provider/events.h"
#include "provider/login.h"
#include "provider/provider.h"
#include "proxy/inference_proxy.h"
#include "secrets/codex_login.h"
#include "secrets/store.h"
#include "unit/agent_mcp.h"
#include "unit/session_keep.h"
#include "unit/transcript_steps.h"

namespace aw {

// The port the inference proxy is bridged onto inside a phase's own network namespace.
constexpr uint16_t kInferencePort = 4180;

struct AgentSession::State {
  const ProviderSpec* spec = nullptr;
  std::string inference;  // the upstream's name ("" = none)
  std::unique_ptr<InferenceProxy> proxy;
  std::FILE* proxy_log = nullptr;
  std::string token;
  ProviderLaunch launch;
  std::optional<Lease> lease;
  std::map<std::string, McpServerConfig> mcp;          // for the record: which secrets went by name
  std::unique_ptr<AgentMcp> outside_mcp;               // the servers run outside (agent_mcp.h)
  std::unique_ptr<TranscriptSteps> steps;              // the agent's output as steps (events.jsonl)
  std::vector<TranscriptEvent> events;                 // parsed so far (phase_over)
  const std::vector<std::string>* literals = nullptr;  // the unit's, owned by run_unit
  // resume: (session_keep.h) whether the repository asks, where the state and HOME are, which
  // pull request the unit follows up ("" = none), what was said at the start for the record.
  bool resume = false;
  std::string state_dir, home, follow_of;
  std::vector<std::string> resume_notes;

  ~State() {
    proxy.reset();  // joins the proxy's thread before its log closes
    if (proxy_log) std::fclose(proxy_log);
  }
};

namespace {

const ProviderSpec* provider_of(const AgentConfig& a) {
  return find_provider(a.provider.empty() ? "command" : a.provider);
}

// $CODEX_HOME/auth.json of the owner, or ~/.codex/auth.json.
std::string owner_codex_auth() {
  const char* h = std::getenv("CODEX_HOME");
  return (h && *h ? std::string(h) : home_dir() + "/.codex") + "/auth.json";
}

Status start_proxy(const Config& cfg, const Target& t, const std::string& credential,
                   const RunDir& dir, Isolator& iso, AgentSession::State& s, std::string& url) {
  const InferenceConfig& ic = cfg.inference.at(t.agent.inference);
  if (s.spec->name != "command" && s.spec->api != ic.api)
    return fail(
        "agent {} (provider {}) speaks the {} API but its inference upstream {} is {}; "
        "point `agents.{}.inference` at an upstream with `api: {}`",
        t.agent.name, s.spec->name, s.spec->api.empty() ? "no known" : s.spec->api, ic.name, ic.api,
        t.agent.name, s.spec->api);
  InferenceProxyOptions o;
  AW_TRY(SocketBridge bridge, iso.bridge_socket(dir.root + "/inference.sock", kInferencePort));
  o.socket_path = bridge.path;
  o.tcp_loopback = !bridge.bridged;
  o.api = ic.api;
  o.upstream = ic.url;
  o.credential = credential;
  o.ca_file = ic.ca_file;
  o.max_requests = ic.max_requests;
  o.budget_tokens = ic.budget_tokens;
  s.proxy_log = std::fopen((dir.root + "/inference.log").c_str(), "ae");
  std::FILE* log = s.proxy_log;
  o.log = [log](const std::string& line) {
    if (log) std::fprintf(log, "%s\n", line.c_str()), std::fflush(log);
  };
  AW_TRY(s.proxy, with_context(InferenceProxy::start(std::move(o)), "inference proxy"));
  s.inference = ic.name;
  AW_TRY(s.token, s.proxy->issue_token());
  url = fmt::format("http://127.0.0.1:{}", bridge.bridged ? kInferencePort : s.proxy->tcp_port());
  return {};
}

}  // namespace

Status check_agent_login(const Target& t, const ResolvedProfile& profile) {
  const ProviderSpec* spec = provider_of(t.agent);
  if (!spec) return {};  // AgentSession::start names the unknown provider
  LoginSources s;
  s.agent = t.agent.name;
  s.inference = !t.agent.inference.empty();
  s.lend_login = t.agent.lend_login;
  for (const auto& [name, _] : profile.env()) s.env_names.push_back(name);
  for (const auto& name : t.agent.env)
    if (const char* v = std::getenv(name.c_str()); v && *v) s.env_names.push_back(name);
  return check_login(*spec, s);
}

Result<std::string> read_inference_credential(const Config& cfg, const Target& t) {
  if (t.agent.inference.empty()) return std::string();
  auto it = cfg.inference.find(t.agent.inference);
  if (it == cfg.inference.end())
    return fail(
        "agent {} names inference upstream '{}', which is not configured under "
        "`inference:`",
        t.agent.name, t.agent.inference);
  const std::string& name = it->second.credential;
  AW_TRY(auto store, with_context(open_secret_store({}), "the secret store"));
  auto value = store->get(name);
  if (!value)
    return fail(
        "the model credential {} of inference upstream {} is missing from the secret "
        "store ({}: {}); store it with `awaywork secret set {}` (read from stdin)",
        name, it->first, store->backend(), value.error().message, name);
  if (value->size() < Redactor::kMinLiteral)
    return fail("the model credential {} is shorter than {} bytes: not a real key", name,
                Redactor::kMinLiteral);
  return std::move(*value);
}

namespace {

// What the agent's MCP servers get by name (agents.NAME.mcp: env: and secrets:), put in the agent
// phase's environment: the CLI hands them on to the server it starts; the secrets' values are
// redacted from every recorded byte like the model key.
Status add_mcp_values(const AgentConfig& a, EnvPairs& env, std::vector<std::string>& literals) {
  std::unique_ptr<SecretStore> store;
  for (const auto& [server, m] : a.mcp) {
    if (m.outside) continue;  // its variables and secrets stay with it, outside the unit
    for (const auto& name : m.env)
      if (const char* v = std::getenv(name.c_str()); v && *v) env.emplace_back(name, v);
    for (const auto& name : m.secrets) {
      if (!store) {
        AW_TRY(store, with_context(open_secret_store({}), "the secret store"));
      }
      auto value = store->get(name);
      if (!value)
        return fail(
            "the secret {} of MCP server {} (agent {}) is missing from the secret store ({}); "
            "store it with `awaywork secret set {}`",
            name, server, a.name, value.error().message, name);
      literals.push_back(*value);
      env.emplace_back(name, std::move(*value));
    }
  }
  return {};
}

// Lend one of the provider's folders. One bound over a path of the clone (cursor's mask over
// .cursor) covers a folder there, or nothing (an empty mount point is made): a file holds nothing
// for the CLI to load and is left alone; a link would lead the CLI past the mask (and cannot hold
// a mount), so a view that masks meets one with a clear refusal. No unit process runs yet, and
// the restore between rounds puts the path back to the base's.
Status lend_provider_folder(Isolator& iso, const LentFolder& f, const std::string& clone) {
  bool over_clone = !clone.empty() && f.target.rfind(clone + "/", 0) == 0;
  struct stat st {};
  bool present = over_clone && ::lstat(f.target.c_str(), &st) == 0;
  if (present && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) return {};
  AW_TRY(bool lent, with_context(iso.lend_folder(f), f.why));
  if (lent && present && S_ISLNK(st.st_mode)) {
    std::string rel = f.target.substr(clone.size() + 1);
    return fail(
        "the clone's {0} is a link: the agent's CLI would load what it leads to, and awaywork "
        "masks {0} with an empty read-only folder, which a link cannot hold ({1}); commit {0} as "
        "a folder, or set `agent_settings: clone` for this repository to let the CLI load it",
        rel, f.why);
  }
  return {};
}

}  // namespace

AgentSession::AgentSession(std::unique_ptr<State> s) : s_(std::move(s)) {}
AgentSession::~AgentSession() = default;

Result<std::unique_ptr<AgentSession>> AgentSession::start(const Config& cfg, const Target& t,
                                                          const std::string& credential,
                                                          const RunDir& dir, const UnitPaths& paths,
                                                          Isolator& iso,
                                                          std::vector<std::string>& literals,
                                                          const std::string& follow_of) {
  auto s = std::make_unique<State>();
  s->spec = provider_of(t.agent);
  if (!s->spec) return fail("agent {}: unknown provider '{}'", t.agent.name, t.agent.provider);
  std::string url;
  if (!t.agent.inference.empty()) {
    AW_CHECK(start_proxy(cfg, t, credential, dir, iso, *s, url));
    literals.push_back(s->token);
  }
  AW_TRY(s->outside_mcp, AgentMcp::start(cfg, t.agent, dir.root, iso, literals));
  LaunchExtras extras{paths.work, t.repo.clone_agent_settings, s->outside_mcp->for_cli(),
                      t.agent.plugins, ""};
  s->resume = t.repo.forge.resume;
  s->state_dir = state_dir_of(cfg);
  s->home = paths.home;
  s->follow_of = follow_of;
  // Before the CLI's own folders are made: no unit process has run in the fresh HOME yet.
  if (s->resume && !follow_of.empty()) {
    AW_TRY(extras.resume_id, hand_agent_session({s->state_dir, follow_of, s->spec}, paths.home,
                                                paths.work, s->resume_notes));
  }
  AW_TRY(s->launch, provider_launch(*s->spec, t.agent.command, url, s->token, paths.home, extras));
  for (const auto& d : s->launch.state_dirs) AW_CHECK(make_dirs(d, 0700));
  for (const auto& [path, content] : s->launch.files) AW_CHECK(write_file(path, content, 0600));
  for (const auto& f : s->launch.lent_folders) AW_CHECK(lend_provider_folder(iso, f, paths.work));
  for (const auto& p : s->launch.readonly_paths)
    AW_CHECK(with_context(iso.lend_path(p), "plugin " + p).map([](bool) {}));
  AW_CHECK(add_mcp_values(t.agent, s->launch.env, literals));
  s->mcp = s->outside_mcp->for_cli();  // an outside server hands the agent no secret
  std::vector<std::string> names;
  for (const auto& [name, _] : s->launch.env) names.push_back(name);
  iso.add_agent_env_names(names);
  if (t.agent.lend_login) {
    AW_TRY(Lease lease, with_context(lend_codex_login(owner_codex_auth(), paths.home + "/.codex"),
                                     "lend the Codex login"));
    // The lent tokens are secrets like any other: redacted from every recorded byte.
    auto auth = nlohmann::json::parse(lease.lent_bytes, nullptr, false);
    if (auth.is_object()) {
      if (auth.contains("tokens") && auth["tokens"].is_object())
        for (const auto& [k, v] : auth["tokens"].items())
          if (v.is_string() && k != "account_id") literals.push_back(v.get<std::string>());
      if (auth.contains("OPENAI_API_KEY") && auth["OPENAI_API_KEY"].is_string())
        literals.push_back(auth["OPENAI_API_KEY"].get<std::string>());
    }
    s->lease = std::move(lease);
  }
  s->literals = &literals;
  // The steps go to events.jsonl as the agent works, for the page of a running unit (issue 25).
  s->steps =
      std::make_unique<TranscriptSteps>(s->spec->name, dir.root + "/events.jsonl", &literals);
  return std::unique_ptr<AgentSession>(new AgentSession(std::move(s)));
}

const Argv& AgentSession::argv() const {
  return s_->launch.argv;
}
const EnvPairs& AgentSession::env() const {
  return s_->launch.env;
}
std::vector<std::string> AgentSession::credential_names() const {
  std::vector<std::string> out;
  if (!s_->token.empty())
    for (const auto& [name, value] : s_->launch.env)
      if (value == s_->token) out.push_back(name + " (run token)");
  if (s_->lease) out.push_back("CODEX_HOME/auth.json (lent login)");
  for (const auto& [server, m] : s_->mcp)
    for (const auto& name : m.secrets) out.push_back(name + " (MCP server " + server + ")");
  return out;
}

void AgentSession::feed(std::string_view bytes, uint64_t log_offset) {
  s_->steps->feed(bytes, log_offset);
}

std::string AgentSession::phase_over() {
  auto more = s_->steps->finish();  // redacted of the literals as they are now
  std::string last;
  for (auto& e : more) {
    e.text = redact_all(e.text, *s_->literals);
    if (e.kind == TranscriptEvent::Kind::error && !e.text.empty()) last = e.text;
    s_->events.push_back(std::move(e));
  }
  return last;
}

void AgentSession::revoke() {
  if (s_->proxy) s_->proxy->revoke(s_->token);
}

Status AgentSession::next_round(std::vector<std::string>& literals) {
  if (!s_->proxy) return {};
  s_->proxy->revoke(s_->token);
  AW_TRY(std::string next, s_->proxy->issue_token_sharing(s_->token));
  for (auto& [name, value] : s_->launch.env)
    if (value == s_->token) value = next;
  s_->token = std::move(next);
  literals.push_back(s_->token);
  return {};
}

void AgentSession::end(const RunDir& dir, const std::vector<std::string>& literals, UnitRecord& u) {
  if (s_->proxy) {
    s_->proxy->revoke(s_->token);
    InferenceUsage n = s_->proxy->usage(s_->token);
    u.notes.push_back(fmt::format(
        "inference {}: {} request(s) forwarded, {} input and {} output token(s), {} refused by "
        "its limits; the run token is revoked",
        s_->inference, n.requests, n.input_tokens, n.output_tokens, n.refused));
    s_->proxy.reset();
  }
  if (s_->outside_mcp) {
    for (auto& n : s_->outside_mcp->notes()) u.notes.push_back(std::move(n));
    s_->outside_mcp.reset();  // its sessions end with the agent's last phase
  }
  if (s_->lease) {
    auto said = return_codex_login(*s_->lease, s_->lease->unit_path);
    u.notes.push_back("codex login: " + (said ? *said : said.error().message));
    s_->lease.reset();
  }
  for (auto& n : s_->resume_notes) u.notes.push_back(std::move(n));
  s_->resume_notes.clear();
  (void)phase_over();
  if (int err = s_->steps->write_error())
    u.notes.push_back("could not write events.jsonl (the steps while the agent ran): " +
                      errno_text(err));
  if (s_->events.empty()) return;
  for (auto& e : s_->events) e.text = redact_all(e.text, literals);
  if (auto ok = write_events(dir.root + "/events.json", s_->events); !ok)
    u.notes.push_back("could not write events.json: " + ok.error().message);
}

void AgentSession::keep_session(UnitRecord& u, bool lost) {
  if (!s_->resume || lost) return;
  // A unit that ended before its agent ran leaves the kept session as it was.
  bool ran = std::any_of(u.phases.begin(), u.phases.end(),
                         [](const PhaseRecord& p) { return p.name.rfind("agent", 0) == 0; });
  const std::string& pull = s_->follow_of.empty() ? u.pull_request : s_->follow_of;
  if (!ran || pull.empty()) return;
  if (auto ok =
          keep_agent_session({s_->state_dir, pull, s_->spec}, s_->home, *s_->literals, u.notes);
      !ok)
    u.notes.push_back("resume: the agent's session was not kept: " + ok.error().message);
}

}  // namespace aw
