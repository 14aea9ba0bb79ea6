#include "watch/watcher.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "base/json_read.h"
#include "forge/admission.h"
#include "unit/pipeline.h"
#include "watch/iso_time.h"
#include "watch/poll_state.h"
#include "watch/triggers.h"
#include "watch/watcher_internal.h"
#include "watch/window.h"

namespace aw {

using nlohmann::json;
using watch_detail::assigned_to;
using watch_detail::has_label;
using watch_detail::slowed_interval;

namespace {

constexpr int64_t kBeatSeconds = 5;

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  std::string h = buf;
  for (char& c : h)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  return h;
}

int64_t header_number(const std::map<std::string, std::string>& h, const std::string& name) {
  auto it = h.find(name);
  if (it == h.end() || it->second.empty() ||
      it->second.find_first_not_of("0123456789") != std::string::npos || it->second.size() > 12)
    return -1;
  return std::stoll(it->second);
}

// Where the answers a session opens with are kept, per forge (a forge is one token, so one
// login): "etag/github/user", "etag/github/repos/octo/web".
std::string opening_key(const std::string& forge, const std::string& target) {
  return "etag/" + forge + target;
}

// The issue's number (0 when absent); a wrongly typed one is an Error naming it.
Result<int64_t> issue_number(const json& issue) {
  return JsonRead(issue, "GitHub's issue list").int_or("number", int64_t{0});
}

}  // namespace

Watcher::Watcher(const Config& cfg, WatchOptions opt, EventLog& log, Clock& clock)
    : cfg_(cfg), opt_(std::move(opt)), log_(log), clock_(clock) {
  me_.host = host_name();
  me_.pid = ::getpid();
}

Watcher::~Watcher() = default;

Watcher::Repo* Watcher::repo_named(const std::string& name) {
  for (auto& r : repos_)
    if (r.watch.repo == name) return &r;
  return nullptr;
}

void Watcher::keep(const IssueSlot& slot) {
  // Saved before the map changes: slot may be the very element erased.
  if (auto ok = save_slot(*store_, slot); !ok)
    log_.write("error", watch_detail::with(watch_detail::where(slot),
                                           {{"error", "state database: " + ok.error().message}}));
  std::string key = slot_key(slot);
  if (slot.phase == "idle")
    slots_.erase(key);
  else if (&slots_[key] != &slot)
    slots_[key] = slot;
}

Status Watcher::open_repos() {
  if (cfg_.watch.repos.empty() && cfg_.watch.sources.empty())
    return fail("nothing to watch: add watch: {{repos: {{NAME: {{}}}}}} to {} (docs/watch.md)",
                cfg_.file.empty() ? "the config" : cfg_.file);
  for (const WatchRepoConfig& w : cfg_.watch.repos) {
    Repo r;
    r.watch = w;
    AW_TRY(r.repo, find_forge_repo(cfg_, w.repo));
    if (!r.repo.forge.gitlab.empty()) {
      AW_CHECK(with_context(open_gitlab_repo(r), "watch " + w.repo));
      repos_.push_back(std::move(r));
      continue;
    }
    // GET /user and GET /repos/O/R with the ETags the last watch kept: each start, and each
    // --once pass, then reads both with a 304, which does not count against the rate limit.
    std::map<std::string, GitHub::Cached> known;
    std::vector<std::string> opening = {"/user", "/repos/" + r.repo.forge.github};
    for (const std::string& target : opening)
      if (auto j = store_->watch_get(opening_key(r.repo.forge.forge, target)); j && *j) {
        // A kept answer that is not as written is said and not used: it is asked for again.
        auto etag = JsonRead(**j, "watch state " + opening_key(r.repo.forge.forge, target))
                        .str_or("etag", "");
        if (!etag)
          log_.write("error",
                     {{"repo", w.repo}, {"error", "state database: " + etag.error().message}});
        else if (!etag->empty() && (**j).contains("body") && (**j)["body"].is_object())
          known[target] = GitHub::Cached{*etag, (**j)["body"]};
      }
    AW_TRY(r.s, with_context(open_forge(cfg_, r.repo, known), "watch " + w.repo));
    for (const std::string& target : opening)
      if (auto c = r.s->gh.cached(target);
          c && (!known.count(target) || known[target].etag != c->etag))
        (void)store_->watch_put(opening_key(r.repo.forge.forge, target),
                                {{"etag", c->etag}, {"body", c->body}});
    r.forge = github_watch_forge(*r.s);
    repos_.push_back(std::move(r));
  }
  return {};
}

Status Watcher::run() {
  AW_TRY(Store st, Store::open(state_dir_of(cfg_)));
  store_.emplace(std::move(st));
  recover_abandoned(cfg_, *store_);
  AW_CHECK(open_repos());
  log_.write("watch_started",
             {{"host", me_.host}, {"pid", me_.pid}, {"repos", repos_.size()}, {"once", opt_.once}});
  recover();
  open_sources();  // task source plugins (watcher_source.cc)
  started_at_ = clock_.now_seconds();
  for (;;) {
    int64_t now = clock_.now_seconds();
    if (now - beat_at_ >= kBeatSeconds) beat(now, false);
    if (!stopping_ && opt_.stop && opt_.stop()) {
      stopping_ = true;
      stop_deadline_ = now + cfg_.watch.shutdown_grace;
      log_.write("stopping",
                 {{"running", children_.size()}, {"grace_seconds", cfg_.watch.shutdown_grace}});
    }
    if (stopping_ && !interrupted_units_ && now >= stop_deadline_) stop_all("watch stopped");
    if (!stopping_)
      for (auto& r : repos_)
        if (now >= r.next_poll && !(opt_.once && r.polled)) poll(r, now);
    watch_running(now);
    watch_dispatched(now);
    if (!stopping_) start_queued(now);
    tick_sources(now);
    if (children_.empty() && sources_idle() && (stopping_ || done_once())) break;
    clock_.sleep(opt_.tick);
  }
  beat(clock_.now_seconds(), true);
  log_.write("watch_stopped", {{"queued", slots_.size()}});
  return {};
}

bool Watcher::done_once() const {
  if (!opt_.once) return false;
  for (const auto& r : repos_)
    if (!r.polled) return false;
  // Queued issues that cannot start now (window closed) stay queued for the next pass.
  for (const auto& [_, s] : slots_)
    // A follow-up waiting out its cooldown is for a later pass.
    if (s.phase == "queued" && !(s.pull && s.not_before > clock_.now_seconds())) {
      for (const auto& r : repos_)
        if (r.watch.repo == s.repo && window_open(r.watch.window, clock_.now_seconds()))
          return false;
    }
  return true;
}

void Watcher::poll(Repo& r, int64_t now) {
  if (r.gl) return poll_gitlab(r, now);
  PollState st;
  if (!poll_state_of(r, "poll/" + r.watch.repo, now, st)) return;
  std::string target = issues_target(r.s->owner_repo, st.since);
  // The state says which ETag is good for this since (none after an answer that left something
  // to look at again), also in a watch that has been running: the client's own cache may hold
  // the ETag of an answer the state chose not to keep.
  r.s->gh.remember(target, GitHub::Cached{st.etag, json()});
  int before = r.s->gh.stats().not_modified;
  auto reply = r.s->gh.call("GET", target);
  r.polled = true;
  r.polled_at = now;
  int64_t interval = cfg_.watch.poll_seconds;
  bool changed = r.s->gh.stats().not_modified == before;
  std::string why;
  if (!reply)
    why = reply.error().message;
  else if (reply->status != 200)
    why = r.s->gh.describe("GET", target, *reply);
  else if (changed && !reply->body.is_array())  // nothing is kept of it
    why = fmt::format("GitHub GET {}: expected a list, got {}", target, reply->body.type_name());
  if (!why.empty()) {
    log_.write("poll_failed", {{"repo", r.watch.repo}, {"error", why}});
    r.next_poll = now + interval;
    return;
  }
  interval = std::max(interval, header_number(reply->headers, "x-poll-interval"));
  // Slow down before the limit is spent: what is left is spread until its reset.
  int64_t remaining = header_number(reply->headers, "x-ratelimit-remaining");
  int64_t reset = header_number(reply->headers, "x-ratelimit-reset");
  interval = slowed_interval(interval, remaining, reset, now, repos_.size());
  r.next_poll = now + interval;
  log_.write("poll", {{"repo", r.watch.repo},
                      {"changed", changed},
                      {"next_in", interval},
                      {"remaining", remaining}});
  // Before the list is examined: a pull request is judged against the records as pruned.
  prune_dispatched_runs(r, now);  // run_on: actions (watcher_actions_own.cc)
  sweep_ci(r, now);  // follow_ci: checks fail without the issue list showing it (watcher_pulls.cc)
  if (!changed) return;
  ListAnswer answer;
  answer.items = reply->body;
  answer.etag = reply->headers.count("etag") ? reply->headers.at("etag") : "";
  answer.server_time = reply->headers.count("date") ? http_date(reply->headers.at("date")) : 0;
  if (answer.server_time == 0) answer.server_time = now;
  if (reply->headers.count("link") &&
      reply->headers.at("link").find("rel=\"next\"") != std::string::npos) {
    answer.paged = true;
    // Without the later pages, since moves on from this page's newest: they come next time.
    if (auto all = r.s->gh.get_all(target)) answer.items = std::move(*all);
  }
  // A pull request (the list holds them too) is examined for follow-ups (watcher_pulls.cc).
  PollState next = settle(r, "poll/" + r.watch.repo, st, answer, [&](const json& issue) {
    return issue.contains("pull_request") ? examine_pull(r, issue, now) : examine(r, issue, now);
  });
  if (next.since != st.since) r.s->gh.remember(target, GitHub::Cached{});  // its body is dropped
}

PollState Watcher::settle(Repo& r, const std::string& key, const PollState& st,
                          const ListAnswer& answer,
                          const std::function<bool(const json&)>& examine) {
  std::set<int64_t> settled;
  if (answer.items.is_array())
    for (const json& item : answer.items) {
      if (!item.is_object()) continue;
      // An item that shows what it showed when last examined has no new trigger to find; one
      // whose examination failed is not settled, and the next poll examines it again.
      if (!needs_examining(st, item) || examine(item))
        settled.insert(issue_number(item).value_or(0));  // 0: no issue, nothing kept of it
    }
  PollState next = next_poll_state(st, answer, settled);
  if (auto ok = store_->watch_put(key, to_json(next)); !ok)
    log_.write("error",
               {{"repo", r.watch.repo}, {"error", "state database: " + ok.error().message}});
  return next;
}

std::function<bool(const ForgeUser&)> Watcher::trusted(Repo& r, int64_t now) {
  auto adm = std::make_shared<Admission>(r.repo.forge.trust, 0, r.forge->self_login(),
                                         r.forge->roles(), now);
  std::string self = r.forge->self_login();
  return [adm, self](const ForgeUser& u) { return u.login == self || adm->check(u).admitted; };
}

bool Watcher::examine(Repo& r, const json& issue, int64_t now) {
  auto number = issue_number(issue);
  if (!number) {
    log_.write("error", {{"repo", r.watch.repo}, {"error", number.error().message}});
    return false;
  }
  int64_t n = *number;
  if (n <= 0) return true;  // nothing to examine
  IssueSlot slot;
  if (!slot_of(r, n, slot)) return false;
  const WatchRepoConfig& w = r.watch;
  std::string base = fmt::format("/repos/{}/issues/{}", r.s->owner_repo, n);
  json events, comments;
  if (has_label(issue, w.label) || assigned_to(issue, w.assignee)) {
    auto e = r.s->gh.get_all(base + "/events?per_page=100");
    if (!e) {
      log_.write("error", {{"repo", w.repo}, {"issue", n}, {"error", e.error().message}});
      return false;
    }
    events = std::move(*e);
  }
  int64_t commented = 0;
  if (!w.command.empty()) {
    auto said = JsonRead(issue, "GitHub's issue list").int_or("comments", int64_t{0});
    if (!said) {
      log_.write("error", {{"repo", w.repo}, {"issue", n}, {"error", said.error().message}});
      return false;
    }
    commented = *said;
  }
  if (commented > 0) {
    auto c = r.s->gh.get_all(base + "/comments?per_page=100");
    if (!c) {
      log_.write("error", {{"repo", w.repo}, {"issue", n}, {"error", c.error().message}});
      return false;
    }
    comments = std::move(*c);
  }
  Admission adm(r.repo.forge.trust, stop_after_of(r), r.forge->self_login(), r.forge->roles(), now);
  TriggerScan scan = scan_triggers(w, events, comments, slot.seen,
                                   [&](const ForgeUser& u) { return adm.check(u); });
  take_triggers(r, slot, scan, now);
  return true;
}

int64_t Watcher::stop_after_of(const Repo& r) const {
  int64_t stop_after = r.watch.stop_after;
  if (r.repo.forge.stop_after > 0 && (stop_after == 0 || r.repo.forge.stop_after < stop_after))
    stop_after = r.repo.forge.stop_after;
  return stop_after;
}

bool Watcher::slot_of(const Repo& r, int64_t n, IssueSlot& slot, bool mr) {
  if (auto it = slots_.find(slot_key(r.watch.repo, n, mr)); it != slots_.end()) {
    slot = it->second;
    return true;
  }
  auto loaded = load_slot(*store_, r.watch.repo, n, mr);
  if (!loaded) {
    log_.write("error", {{"repo", r.watch.repo},
                         {mr ? "merge_request" : "issue", n},
                         {"error", loaded.error().message}});
    return false;
  }
  slot = std::move(*loaded);
  return true;
}

bool Watcher::poll_state_of(Repo& r, const std::string& key, int64_t now, PollState& st) {
  auto saved = store_->watch_get(key);
  if (!saved) {
    log_.write("poll_failed",
               {{"repo", r.watch.repo}, {"error", "state database: " + saved.error().message}});
    r.polled = true;
    r.polled_at = now;
    r.next_poll = now + cfg_.watch.poll_seconds;
    return false;
  }
  st = *saved ? poll_state_from_json(**saved) : PollState{};
  return true;
}

void Watcher::take_triggers(Repo& r, IssueSlot& slot, const TriggerScan& scan, int64_t now) {
  const WatchRepoConfig& w = r.watch;
  int64_t n = slot.number;
  slot.seen = scan.seen;
  std::string admitted;
  int64_t admitted_at = 0;
  for (const TriggerFinding& f : scan.found) {
    log_.write(f.admitted ? "trigger_admitted" : "trigger_refused", {{"repo", w.repo},
                                                                     {"issue", n},
                                                                     {"kind", f.kind},
                                                                     {"actor", f.actor},
                                                                     {"reason", f.reason}});
    if (f.admitted && admitted.empty()) {
      admitted = f.reason;
      admitted_at = f.at;
    }
  }
  if (!admitted.empty()) {
    if (slot.phase == "idle") {
      queue_slot(slot, now, admitted);
      slot.trigger_at = admitted_at;
      log_.write("queued", {{"repo", w.repo}, {"issue", n}, {"trigger", admitted}});
    } else {
      log_.write(
          "trigger_ignored",
          {{"repo", w.repo}, {"issue", n}, {"reason", "the issue is already " + slot.phase}});
    }
  }
  keep(slot);
}

}  // namespace aw
