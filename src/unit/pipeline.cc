#include "unit/pipeline.h"

#include <unistd.h>

#include <cctype>
#include <ctime>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "check/redact.h"
#include "config/paths.h"
#include "isolate/choose/choose.h"
#include "proxy/unit_ca.h"
#include "record/store.h"
#include "unit/agent_forge.h"
#include "unit/agent_session.h"
#include "unit/disk_reserve.h"
#include "unit/notify.h"
#include "unit/steps.h"
#include "unit/unit_id.h"
#include "unit/unit_injection.h"
#include "unit/watchdog.h"

namespace aw {

namespace {

// The end of a unit: state, summary file, database; the isolator tidies up (HOME goes, the
// clone stays for inspection; a lost unit's folders all stay).
struct Unit {
  Store& store;
  const RunDir& dir;
  Isolator& iso;
  UnitRecord& u;
  std::string prompt_file = {};   // the agent's copy of the prompt, once written
  bool prompt_redacted = false;   // the record's prompt differs: it held a secret
  AgentSession* agent = nullptr;  // once started: revoked and written up at the end
  const std::vector<std::string>* literals = nullptr;
  UnitObserver* obs = nullptr;     // told of the end (an issue's progress comment)
  DiskReserve* reserve = nullptr;  // room for the end's writes
  std::string state_dir = {};      // whose filesystem may have filled
  const Config* cfg = nullptr;     // its notifier plugins are told the outcome

  // A disk that filled anyway (between the watchdog's looks, or with its floor off) is named:
  // whatever step met it failed with its own words, often git's.
  void note_full_disk() {
    auto free = free_disk_bytes(state_dir);
    if (!free || *free >= (1u << 20)) return;
    std::string full =
        fmt::format("the filesystem of {} is full ({} free)", state_dir, mib_text(*free));
    u.notes.push_back(full +
                      ": what the unit wrote after it filled is incomplete; free space there");
    if (u.state == UnitState::done) return;
    while (!u.reason.empty() && std::isspace(static_cast<unsigned char>(u.reason.back())))
      u.reason.pop_back();
    u.reason += "; " + full;
  }

  UnitRecord end(UnitState state, const std::string& reason) {
    if (obs) obs->ended(u, state, redact_all(reason, *literals));
    // The prompt as given was the agent's input; what stays is the redacted one.
    if (prompt_redacted && !prompt_file.empty()) (void)write_file(prompt_file, u.prompt, 0600);
    if (agent) agent->end(dir, *literals, u);
    // Before the isolation tidies HOME away; a lost unit's folders may still be in use.
    if (agent) agent->keep_session(u, state == UnitState::lost);
    u.state = state;
    u.reason = reason;
    u.ended_at = iso_now();
    u.current_phase.reset();  // an ended unit runs no phase
    for (auto& n : iso.finish(state == UnitState::lost)) u.notes.push_back(std::move(n));
    // Once the outcome is final and before it is recorded: a notifier's failure is a note.
    if (cfg) notify_unit_ended(*cfg, u, redact_all(reason, *literals), *literals);
    note_full_disk();
    if (reserve) reserve->release();
    (void)write_file(dir.summary(), json_text(to_json(u), 2) + "\n", 0600);
    if (auto ok = store.save(u); !ok)
      u.notes.push_back(fmt::format(
          "the record could not be written to the database: {}; the next start of awaywork "
          "records it from {}",
          ok.error().message, dir.summary()));
    return u;
  }
};

// The transcript closed; a cut one is noted in the record.
void close_transcript(Transcript& t, const Config& cfg, UnitRecord& u) {
  t.close();
  if (t.write_error() != 0)
    u.notes.push_back(
        fmt::format("the transcript could not be written to the end ({}): it is "
                    "incomplete",
                    errno_text(t.write_error())));
  if (t.dropped() > 0)
    u.notes.push_back(fmt::format(
        "the transcript reached max_transcript_bytes ({} bytes): {} bytes more were left out",
        cfg.max_transcript_bytes, t.dropped()));
}

}  // namespace

void Observers::started(UnitRecord& u) {
  for (UnitObserver* o : all_)
    if (o) o->started(u);
}

void Observers::phase_started(UnitRecord& u, const std::string& phase) {
  for (UnitObserver* o : all_)
    if (o) o->phase_started(u, phase);
}

void Observers::phase_ended(const PhaseRecord& p) {
  for (UnitObserver* o : all_)
    if (o) o->phase_ended(p);
}

void Observers::ended(UnitRecord& u, UnitState state, const std::string& reason) {
  for (UnitObserver* o : all_)
    if (o) o->ended(u, state, reason);
}

bool Observers::cancelled() {
  bool any = false;
  for (UnitObserver* o : all_)
    if (o && o->cancelled()) any = true;  // each is polled: one may tick a display
  return any;
}

Result<UnitRecord> run_unit(const Config& cfg, const RunRequest& req, UnitObserver& obs,
                            const OpenPublisher& publishers) {
  AW_TRY(Resolved resolved, resolve_target(cfg, req, publishers));
  Target& t = resolved.target;
  Publisher* pub = resolved.publisher.get();  // kept out of t: t reaches the phases
  std::string state = state_dir_of(cfg);
  AW_TRY(Store store, Store::open(state));
  UsageOnExit usage{store, pub};
  const RunOrigin& origin = req.origin;
  recover_abandoned(cfg, store);

  // Read before the record exists so that no byte of the record (the prompt first) is written
  // unredacted; a failure is recorded below, once the unit exists, and no phase runs.
  auto profile = resolve_profile(cfg, t, req);
  // Every literal value every recorded byte of the unit is redacted of: the profile's secrets
  // (a model credential held by the inference proxy goes here too).
  std::vector<std::string> redact_literals;
  if (profile) redact_literals = profile->secret_values();
  // The model credential stays with the inference proxy; the record is redacted of it too.
  auto credential = read_inference_credential(cfg, t);
  if (credential && !credential->empty()) redact_literals.push_back(*credential);
  // The publisher's credential (a forge's token) never reaches a phase; the record is redacted
  // of it all the same.
  if (pub)
    for (auto& v : pub->secrets()) redact_literals.push_back(std::move(v));
  // The secrets the egress proxy adds (config `secrets:`): no phase gets a value, but the record
  // is redacted of the values and of their placeholders (a placeholder stands for its secret).
  // A missing one fails the unit below, before any phase.
  auto injection = read_unit_injection(cfg);
  // The read-only forge for the agent (agent_forge: read): the forge's credential, as the
  // repository's publisher read it, joins the injected secrets as one exclusive rule; with the
  // repository's id the publisher's session read when it opened (no request of its own), also
  // over the forge's numeric paths.
  if (injection && t.repo.forge.agent_forge_read) {
    std::vector<std::string> held = pub ? pub->secrets() : std::vector<std::string>{};
    if (auto ok = add_agent_forge(*injection, cfg, t.repo, held.empty() ? "" : held.front(),
                                  pub ? pub->host_repo_id() : 0);
        !ok)
      injection = tl::unexpected(ok.error());
  }
  IsolationSpec spec = t.isolation();
  std::optional<std::string> test_hook;
  if (injection) {
    redact_literals.insert(redact_literals.end(), injection->literals.begin(),
                           injection->literals.end());
    injection->into(spec.egress);
    test_hook = apply_egress_test_upstream(spec.egress);
    if (profile)
      for (const std::string& kv : injection->env) {
        size_t eq = kv.find('=');
        profile->placeholders.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
      }
  }

  UnitRecord u;
  // Named for the issue, not for the repository's task text every issue's prompt starts with.
  AW_TRY(u.id, new_unit_id(origin.issue > 0 ? fmt::format("issue {} {}", origin.issue, origin.title)
                                            : req.prompt));
  AW_TRY(std::unique_ptr<Isolator> iso, make_isolator(cfg, spec, u.id));
  u.created_at = iso_now();
  u.repo = t.label;
  u.source = t.source.work_tree.empty() ? t.source.git_dir : t.source.work_tree;
  u.agent = t.agent.name;
  u.profile = t.profile.name;
  u.prompt = redact_all(req.prompt, redact_literals);
  u.base_ref = t.base_ref;
  u.base_commit = t.base_commit;
  u.isolation = to_string(cfg.isolation);
  u.sandbox = iso->sandbox_note();
  for (auto& n : isolation_notes(cfg, u.sandbox)) u.notes.push_back(std::move(n));
  if (injection)
    for (auto& n : injection_notes(*injection)) u.notes.push_back(std::move(n));
  if (test_hook) u.notes.push_back(*test_hook);
  if (pub) u.forge_repo = pub->host_repo();
  u.issue = origin.issue;
  u.replay_of = req.replay_of;
  if (origin.issue > 0) {
    u.issue_title = redact_all(origin.title, redact_literals).substr(0, 300);
    u.issue_url = origin.url.substr(0, 2000);
  }
  for (const auto& n : origin.notes) u.notes.push_back(n);
  u.runner_pid = ::getpid();
  u.runner_start = process_start_time(u.runner_pid);
  AW_TRY(RunDir dir, make_run_dir(state, u.id));
  u.run_dir = dir.root;
  AW_CHECK(store.save(u));
  obs.started(u);
  notify_unit_started(cfg, u, redact_literals);
  DiskReserve reserve = DiskReserve::make(dir.root + "/" + DiskReserve::kFile);

  Unit unit{store, dir, *iso, u};
  unit.reserve = &reserve;
  unit.state_dir = state;
  unit.cfg = &cfg;
  unit.literals = &redact_literals;
  unit.obs = &obs;
  unit.prompt_redacted = u.prompt != req.prompt;
  if (!profile) return unit.end(UnitState::failed, "prepare: " + profile.error().message);
  if (!credential) return unit.end(UnitState::failed, "prepare: " + credential.error().message);
  if (!injection) return unit.end(UnitState::failed, "prepare: " + injection.error().message);
  if (auto ok = check_agent_login(t, *profile); !ok)
    return unit.end(UnitState::failed, "prepare: " + ok.error().message);
  Watchdog dog(cfg.limits, {state});
  if (auto why = dog.breach()) return unit.end(UnitState::failed, "not started: " + *why);
  auto paths = iso->layout(dir.folder());
  if (!paths) return unit.end(UnitState::failed, "prepare: " + paths.error().message);
  u.work = paths->work;
  auto clone = make_clone(t.source, t.base_commit, t.clone_branch, paths->work, dir.shadow);
  t.mirror_lock.reset();  // the clone has what it needs of the mirror
  if (!clone) return unit.end(UnitState::failed, "prepare: " + clone.error().message);
  dog.watch(paths->work);
  if (auto ok = write_file(paths->prompt_file, req.prompt, 0600); !ok)
    return unit.end(UnitState::failed, "prepare: " + ok.error().message);
  unit.prompt_file = paths->prompt_file;
  if (auto ok = iso->ready({clone->work, clone->work_id}, *paths); !ok)
    return unit.end(UnitState::failed, "prepare: " + ok.error().message);
  // The unit's CA certificate (never its key, which only the egress proxy holds) joins the
  // system's in a bundle every phase trusts: the proxy terminates TLS for the bound hosts.
  if (injection->ca) {
    std::string bundle = dir.root + "/ca-bundle.pem";
    if (auto ok = write_ca_bundle(bundle, *injection->ca); !ok)
      return unit.end(UnitState::failed, "prepare: " + ok.error().message);
    if (auto lent = iso->lend_path(bundle); !lent)
      return unit.end(UnitState::failed, "prepare: the unit's CA bundle: " + lent.error().message);
    for (auto& kv : ca_bundle_env(bundle)) profile->placeholders.push_back(std::move(kv));
    // Isolation user and none take them in the phases' environment; isolation container passes
    // every phase these by value (they are paths, not secrets) and leaves them out of this
    // by-name list (isolate/container/isolator_container.cc).
    iso->add_agent_env_names(ca_bundle_env_names());
  }
  // A pull request's follow-up (forge/pr_source.h) continues that pull request's agent session
  // when its repository says `resume: true` (agent_session.h).
  const std::string follow_of = origin.source == "pull_request" ? origin.url : "";
  auto agent =
      AgentSession::start(cfg, t, *credential, dir, *paths, *iso, redact_literals, follow_of);
  if (!agent) return unit.end(UnitState::failed, "prepare: " + agent.error().message);
  unit.agent = agent->get();
  t.agent.command = (*agent)->argv();
  // Every byte the phases print passes the redactor before it is recorded. A later agent round's
  // run token joins the literals between phases: the redactor is made again to know it.
  auto redactor = std::make_shared<Redactor>(redact_literals);
  auto known = std::make_shared<size_t>(redact_literals.size());
  auto transcript = Transcript::open(
      dir.transcript(),
      [redactor, known, &redact_literals](std::string_view b, Transcript::Drain drain) {
        std::string out;
        if (redact_literals.size() != *known) {
          out = redactor->finish();
          *redactor = Redactor(redact_literals);
          *known = redact_literals.size();
        }
        switch (drain) {
          case Transcript::Drain::more:
            return out + redactor->feed(b);
          case Transcript::Drain::pause:
            return out + redactor->settle();
          case Transcript::Drain::last:
            break;
        }
        out += redactor->finish();
        // A phase's heading drains the filter (for the index's exact offsets) and more follows:
        // a fresh redactor takes it, as after the literals changed.
        *redactor = Redactor(redact_literals);
        return out;
      },
      cfg.max_transcript_bytes, dir.transcript_index());
  if (!transcript) return unit.end(UnitState::failed, transcript.error().message);

  int seconds = req.unit_seconds.value_or(cfg.unit_minutes * 60);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::string task = req.prompt;  // rewritten before each later agent round
  PhaseContext ctx{t,           *paths, *iso,     u.id,         task, deadline,
                   *transcript, obs,    *profile, agent->get(), &dog};
  ctx.literals = &redact_literals;
  ctx.save = [&] { (void)store.save(u); };
  if (auto ok = iso->can_run(plan_phases(t, *paths)); !ok)
    return unit.end(UnitState::failed, "prepare: " + ok.error().message);
  RoundsEnd rounds =
      run_rounds({ctx, *clone, dir, task, redact_literals, [&] { (void)store.save(u); }}, u);
  if (!rounds.passed) {
    close_transcript(*transcript, cfg, u);
    return unit.end(rounds.state, u.reason);
  }
  close_transcript(*transcript, cfg, u);
  Outcome out =
      collect_check_apply(t, pub, dir, *paths, *clone, u, redact_literals, !req.hold, &cfg);
  return unit.end(out.state, out.reason);
}

}  // namespace aw
