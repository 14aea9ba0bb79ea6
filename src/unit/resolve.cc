#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/ranges.h>

#include "base/fs.h"
#include "check/redact.h"
#include "config/repos.h"
#include "provider/provider.h"
#include "secrets/store.h"
#include "unit/steps.h"

namespace aw {

namespace {

Result<AgentConfig> pick_agent(const Config& cfg, const std::string& wanted) {
  std::string name = wanted.empty() ? cfg.default_agent : wanted;
  if (name.empty() && cfg.agents.size() == 1) name = cfg.agents.begin()->first;
  if (name.empty()) {
    if (cfg.agents.empty())
      return fail("no agent is configured; add one under `agents:` in {} (see docs/config.md)",
                  cfg.file.empty() ? default_config_path() : cfg.file);
    return fail("several agents are configured; choose one with --agent NAME or set `agent:`");
  }
  auto it = cfg.agents.find(name);
  // A built-in provider's name needs no entry: `--agent claude` runs claude as its provider
  // starts it (with no `inference:`, it talks to its vendor with what the profile hands it).
  if (it == cfg.agents.end() && name != "command" && find_provider(name)) {
    AgentConfig a;
    a.name = name;
    a.provider = name;
    return a;
  }
  if (it == cfg.agents.end()) {
    std::string names;
    for (const auto& [n, _] : cfg.agents) names += (names.empty() ? "" : ", ") + n;
    return fail("unknown agent '{}'; configured agents: {}", name, names.empty() ? "none" : names);
  }
  return it->second;
}

Result<RepoConfig> pick_repo(const Config& cfg, const std::string& wanted) {
  if (wanted.empty()) return fail("--repo is required: a name from `repos:` or a path");
  if (auto it = cfg.repos.find(wanted); it != cfg.repos.end()) return it->second;
  if (auto forge = find_forge_repo(cfg, wanted)) return *forge;
  std::error_code ec;
  if (std::filesystem::is_directory(wanted, ec)) {
    RepoConfig r;
    r.name = wanted;
    r.path = std::filesystem::absolute(wanted, ec).lexically_normal().string();
    return r;
  }
  return fail("--repo '{}' is neither a configured repository nor a folder", wanted);
}

// --profile, else the repo's `profile:`, else the agent's. The config loader has already proved
// that repo and agent profiles exist; --profile is the owner's typing and is checked here.
Result<ProfileConfig> pick_profile(const Config& cfg, const RunRequest& req, const Target& t) {
  std::string name = !req.profile.empty()      ? req.profile
                     : !t.repo.profile.empty() ? t.repo.profile
                                               : t.agent.profile;
  if (name.empty()) return ProfileConfig{};
  if (auto it = cfg.profiles.find(name); it != cfg.profiles.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [n, _] : cfg.profiles) names.push_back(n);
  if (names.empty())
    return fail(
        "unknown profile '{}'; no profiles are configured: define it under `profiles:` "
        "in {} (see docs/config.md)",
        name, cfg.file.empty() ? default_config_path() : cfg.file);
  return fail("unknown profile '{}'; configured profiles: {}", name, fmt::join(names, ", "));
}

// A replay's recorded base: it must still be a commit of the source (a force push may have
// dropped it from the forge, and then from the mirror).
Result<std::string> pinned_base(const Target& t, const std::string& commit) {
  auto found = resolve_commit(t.source, commit);
  if (!found || *found != commit)
    return fail(
        "the recorded base commit {} is no longer in repo {} (rewritten or pruned history?); "
        "`awaywork replay ID --latest` starts from the head of {} instead",
        commit.substr(0, 12), t.label, t.base_ref.empty() ? "its base branch" : t.base_ref);
  return commit;
}

}  // namespace

Status open_remote_source(const Config& cfg, Target& t, const OpenPublisher& publishers,
                          std::unique_ptr<Publisher>& pub) {
  ApplyTarget remote;
  std::string askpass;
  if (publishers) {
    AW_TRY(pub, publishers(cfg, t.repo));
  }
  std::optional<ApplyTarget> hosted;
  if (pub) hosted = pub->source_remote();
  if (hosted) {
    t.request_repo = pub->host_repo();
    remote.url = hosted->url;
    remote.credential = hosted->credential;
    remote.secret_value = hosted->secret_value;
    remote.ca_file = hosted->ca_file;
    hosted.reset();  // the credential's value goes to the fetch alone
  } else if (!t.repo.forge.path().empty()) {
    return fail("its forge ({}) has no publisher here: this command cannot reach it",
                t.repo.forge.path());
  } else {
    remote.url = t.repo.url;
    remote.credential = t.repo.publish.credential;
    if (!t.repo.publish.user.empty()) remote.username = t.repo.publish.user;
  }
  std::unique_ptr<SecretStore> secrets;
  if (!remote.credential.empty()) {
    askpass = self_exe();
    if (askpass.empty()) return fail("cannot find awaywork's own binary (the askpass)");
    if (remote.secret_value.empty()) {
      AW_TRY(secrets, open_secret_store({}));
      remote.secrets = secrets.get();
    }
  }
  std::string dir = mirror_dir_for(state_dir_of(cfg), remote.url);
  AW_TRY(Mirror m, update_mirror(remote, dir, askpass));
  t.source = m.repo;
  t.mirror_lock = std::make_shared<MirrorLock>(std::move(m.lock));
  return {};
}

EnvPairs ResolvedProfile::env() const {
  EnvPairs out(vars.begin(), vars.end());
  out.insert(out.end(), secrets.begin(), secrets.end());
  out.insert(out.end(), placeholders.begin(), placeholders.end());
  return out;
}

std::vector<std::string> ResolvedProfile::secret_names() const {
  std::vector<std::string> out;
  for (const auto& [n, _] : secrets) out.push_back(n);
  return out;
}

std::vector<std::string> ResolvedProfile::secret_values() const {
  std::vector<std::string> out;
  for (const auto& [_, v] : secrets) out.push_back(v);
  return out;
}

Result<ResolvedProfile> resolve_profile(const Config&, const Target& t, const RunRequest&) {
  ResolvedProfile r;
  r.name = t.profile.name;
  r.vars = t.profile.vars;
  if (t.profile.secrets.empty()) return r;
  auto store = open_secret_store({});
  if (!store)
    return fail(
        "profile {}: the secret store cannot be opened, so its secrets ({}) cannot be "
        "handed to the unit: {}",
        r.name, fmt::join(t.profile.secrets, ", "), store.error().message);
  for (const auto& name : t.profile.secrets) {
    auto value = (*store)->get(name);
    // The store's message says why (absent, unreadable); it never holds a value.
    if (!value)
      return fail(
          "secret {} of profile {} is missing from the secret store ({}: {}); store it "
          "with `awaywork secret set {}` (the value is read from stdin), then run again",
          name, r.name, (*store)->backend(), value.error().message, name);
    // The redactor ignores literals this short (they would match ordinary words), so such a value
    // could not be kept out of the record.
    if (value->size() < Redactor::kMinLiteral)
      return fail(
          "secret {} of profile {} is shorter than {} bytes, too short to be redacted "
          "from the record; store a real secret (`awaywork secret set {}`) or, if it is "
          "not one, move it to the profile's vars:",
          name, r.name, Redactor::kMinLiteral, name);
    r.secrets[name] = std::move(*value);
  }
  return r;
}

Result<Resolved> resolve_target(const Config& cfg, const RunRequest& req,
                                const OpenPublisher& publishers) {
  Resolved r;
  Target& t = r.target;
  t.label = req.repo;
  // An issue's repository is a forge one: a folder or a plain url: repository never has issues.
  AW_TRY(t.repo, req.origin.issue > 0 ? with_context(find_forge_repo(cfg, req.repo), "--issue")
                                      : pick_repo(cfg, req.repo));
  AW_TRY(t.agent, pick_agent(cfg, req.agent));
  AW_TRY(t.profile, pick_profile(cfg, req, t));
  t.request_repo = t.label;
  if (!t.repo.forge.path().empty() || !t.repo.url.empty()) {
    AW_CHECK(with_context(open_remote_source(cfg, t, publishers, r.publisher), "repo " + t.label));
  } else {
    AW_TRY(t.source, with_context(open_source(t.repo.path), "repo " + t.label));
  }
  if (req.origin.issue > 0 && !r.publisher)
    return fail(
        "--issue needs a forge repository (github: OWNER/REPO or gitlab: GROUP/PROJECT); "
        "{} is not one",
        t.label);
  t.base_ref = !req.base.empty() ? req.base : t.repo.base;
  if (t.base_ref.empty() && r.publisher) t.base_ref = r.publisher->default_branch();
  AW_TRY(t.base_commit,
         with_context(resolve_commit(t.source, t.base_ref),
                      fmt::format("base '{}' of repo {}", t.base_ref.empty() ? "HEAD" : t.base_ref,
                                  t.label)));
  if (!req.base_commit.empty()) {
    AW_TRY(t.base_commit, pinned_base(t, req.base_commit));
  }
  if (t.base_ref.empty()) {
    auto head =
        git_ok({t.source.git_dir, "", "", "", {"symbolic-ref", "--short", "-q", "HEAD"}, ""});
    t.base_ref = head && !head->empty() ? head->substr(0, head->find('\n')) : t.base_commit;
  }
  if (!req.instructions_from.empty()) {
    AW_TRY(t.instructions_commit,
           with_context(resolve_commit(t.source, req.instructions_from),
                        fmt::format("the instructions' branch '{}' of repo {}",
                                    req.instructions_from, t.label)));
  }
  bool plain = !t.base_ref.empty() && t.base_ref.find_first_of(" ~^:?*[\\") == std::string::npos &&
               t.base_ref != t.base_commit;
  t.clone_branch = plain ? t.base_ref : "awaywork-base";
  return r;
}

Result<RunDir> make_run_dir(const std::string& state_dir, const std::string& id) {
  AW_TRY(RunFolder made, make_run_folder(state_dir, id));  // the isolation's folders go there
  RunDir d;
  d.root = made.root;
  d.work = made.work;
  d.shadow = d.root + "/git";
  d.apply = d.root + "/apply";
  return d;
}

}  // namespace aw
