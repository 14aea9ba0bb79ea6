#include "serve/api.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/fs.h"
#include "base/json_write.h"
#include "proc/capture.h"
#include "provider/events.h"
#include "serve/marks.h"
#include "serve/metrics.h"
#include "serve/submit.h"
#include "serve/view.h"
#include "unit/transcript_steps.h"
#include "watch/status.h"

extern char** environ;

namespace aw {

namespace {

using nlohmann::json;

Reply json_reply(int status, const json& j) {
  return {status, "application/json", json_text(j) + "\n"};
}

// A query integer in [lo, hi]; the default when absent.
Result<int> query_int(const Route& r, const char* key, int dflt, int lo, int hi) {
  auto it = r.query.find(key);
  if (it == r.query.end()) return dflt;
  int v = 0;
  auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || p != it->second.data() + it->second.size() || v < lo || v > hi)
    return fail("query parameter {} must be a whole number from {} to {}", key, lo, hi);
  return v;
}

std::vector<std::string> environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  return env;
}

// A POST that changes something takes JSON, as the submit does: a page of another site can
// send a form (text/plain, urlencoded, multipart) without asking first, but never JSON.
bool json_type(const std::string& content_type) {
  return content_type.rfind("application/json", 0) == 0;
}

// The newest units a thread is looked for in: a pull request's units are close together in time,
// and a scan stays bounded however long the record grows.
constexpr int kThreadScan = 5000;

constexpr const char* kSendJson =
    "send the request as JSON with Content-Type: application/json (its body {} or empty)";

// A whole number of bytes from the query; the default when absent.
Result<uint64_t> query_bytes(const Route& r, const char* key, uint64_t dflt) {
  auto it = r.query.find(key);
  if (it == r.query.end()) return dflt;
  uint64_t v = 0;
  const char* last = it->second.data() + it->second.size();
  auto [p, ec] = std::from_chars(it->second.data(), last, v);
  if (ec != std::errc() || p != last)
    return fail("query parameter {} must be a whole number of bytes", key);
  return v;
}

// "awaywork apply: no unit 'x'\n" → "no unit 'x'".
std::string child_message(const std::string& err, const char* command) {
  std::string m = err;
  std::string prefix = fmt::format("awaywork {}: ", command);
  if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m.empty() ? fmt::format("awaywork {} failed without a message", command) : m;
}

}  // namespace

Reply error_reply(int status, const std::string& message) {
  return json_reply(status, json{{"error", message}, {"status", status}});
}

Api::Api(ApiContext ctx, Store store, Children& children)
    : ctx_(std::move(ctx)), store_(std::move(store)), children_(children) {}

std::vector<std::string> Api::self_argv(std::vector<std::string> args) const {
  std::vector<std::string> argv = {ctx_.self};
  if (!ctx_.config_path.empty()) argv.insert(argv.end(), {"--config", ctx_.config_path});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Result<UnitRecord> Api::get(const std::string& id) {
  std::lock_guard lock(store_mu_);
  return store_.get(id);
}

Reply Api::handle(const Route& r, const std::string& body, const std::string& content_type) {
  switch (r.kind) {
    case RouteKind::units:
      return units(r);
    case RouteKind::unit:
      return unit(r.unit_id);
    case RouteKind::patch:
      return patch(r.unit_id);
    case RouteKind::submit:
      return submit(body, content_type);
    case RouteKind::marks:
      return marks(r);
    case RouteKind::events:
      return events(r.unit_id);
    case RouteKind::thread:
      return thread(r.unit_id);
    case RouteKind::cancel:
    case RouteKind::replay:
    case RouteKind::apply:
      if (!json_type(content_type)) return error_reply(415, kSendJson);
      if (r.kind == RouteKind::cancel) return cancel(r.unit_id);
      if (r.kind == RouteKind::replay) return replay(r.unit_id, body);
      return apply(r.unit_id);
    case RouteKind::doctor:
      return doctor();
    case RouteKind::config:
      return config();
    case RouteKind::watcher:
      return watcher();
    case RouteKind::metrics:
      return metrics();
    default:
      return error_reply(404, "no such API route; the routes are listed in docs/serve.md");
  }
}

Reply Api::units(const Route& r) {
  auto limit = query_int(r, "limit", 50, 1, 500);
  auto offset = query_int(r, "offset", 0, 0, 1 << 30);
  auto issue = query_int(r, "issue", 0, 1, std::numeric_limits<int>::max());
  if (!limit || !offset || !issue)
    return error_reply(400, (!limit ? limit : !offset ? offset : issue).error().message);
  UnitQuery q;
  q.limit = *limit, q.offset = *offset, q.issue = *issue;
  if (auto it = r.query.find("state"); it != r.query.end()) q.state = it->second;
  if (auto it = r.query.find("repo"); it != r.query.end()) q.repo = it->second;
  Result<UnitPage> page = [&] {
    std::lock_guard lock(store_mu_);
    return store_.page(q);
  }();
  if (!page) return error_reply(500, "reading the record: " + page.error().message);
  json rows = json::array();
  for (const auto& u : page->units) rows.push_back(unit_row(u));
  int64_t next = q.offset + static_cast<int64_t>(page->units.size());
  return json_reply(200, {{"units", rows},
                          {"total", page->total},
                          {"limit", q.limit},
                          {"offset", q.offset},
                          {"next_offset", next < page->total ? json(next) : json()}});
}

Reply Api::watcher() {
  Result<json> view = [&] {
    std::lock_guard lock(store_mu_);
    return watcher_status(store_);
  }();
  if (!view) return error_reply(500, "reading the watcher's state: " + view.error().message);
  return json_reply(200, *view);
}

Reply Api::unit(const std::string& id) {
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  return json_reply(200, unit_detail(*u, ctx_.cfg));
}

Reply Api::patch(const std::string& id) {
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  auto text = read_file(u->run_dir + "/patch.diff", 64u << 20);
  if (!text)
    return error_reply(404, fmt::format("unit {} has no patch (state {}: the agent changed "
                                        "nothing, or it ended before the patch was collected)",
                                        u->id, to_string(u->state)));
  return {200, "text/x-diff; charset=utf-8", *text};
}

Reply Api::submit(const std::string& body, const std::string& content_type) {
  if (content_type.rfind("application/json", 0) != 0)
    return error_reply(415, "send the unit as JSON with Content-Type: application/json");
  auto req = parse_submit(body, ctx_.cfg);
  if (!req) return error_reply(400, req.error().message);
  std::string prompt_file;
  if (req->issue.empty()) {
    auto name = new_prompt_name();
    if (!name) return error_reply(500, "naming the prompt file: " + name.error().message);
    prompt_file = ctx_.state_dir + "/serve/prompts/" + *name;
    if (auto ok = make_dirs(ctx_.state_dir + "/serve/prompts", 0700); !ok)
      return error_reply(500, ok.error().message);
    if (auto ok = write_file(prompt_file, req->prompt, 0600); !ok)
      return error_reply(500, ok.error().message);
  }
  return start_unit(run_args(*req, prompt_file), prompt_file, "run");
}

Reply Api::start_unit(const std::vector<std::string>& args, const std::string& prompt_file,
                      const char* command) {
  auto pid = children_.spawn(self_argv(args));
  if (!pid) {
    if (!prompt_file.empty()) ::unlink(prompt_file.c_str());
    return error_reply(500, fmt::format("starting awaywork {}: {}", command, pid.error().message));
  }
  // The run makes its record within moments (after reading config and prompt); until then it
  // can still refuse (no such repo), which is the caller's error to see.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    Result<std::optional<UnitRecord>> found = [&] {
      std::lock_guard lock(store_mu_);
      return store_.by_runner(*pid);
    }();
    if (found && *found) {
      if (!prompt_file.empty()) ::unlink(prompt_file.c_str());
      children_.release(*pid);
      return json_reply(202, {{"id", (*found)->id}, {"unit", unit_row(**found)}});
    }
    if (auto st = children_.status(*pid)) {
      // Ended: a record made just before exiting is still found above on the next pass.
      Result<std::optional<UnitRecord>> last = [&] {
        std::lock_guard lock(store_mu_);
        return store_.by_runner(*pid);
      }();
      if (last && *last) continue;
      if (!prompt_file.empty()) ::unlink(prompt_file.c_str());
      std::string msg = child_message(children_.output(*pid), command);
      children_.release(*pid);
      return error_reply(400, msg);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return error_reply(
      504, fmt::format("awaywork {} made no record within 60 s; see `awaywork units`", command));
}

Reply Api::replay(const std::string& id, const std::string& body) {
  // {} or {"latest": true}: from the base branch's head instead of the recorded commit.
  auto j = body.empty() ? json::object() : json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return error_reply(400, "the body must be a JSON object: {} or {\"latest\": true}");
  for (const auto& [k, v] : j.items()) {
    if (k != "latest")
      return error_reply(400, fmt::format("unknown field \"{}\"; a re-run takes only \"latest\"",
                                          k.substr(0, 40)));
    if (!v.is_boolean())
      return error_reply(400,
                         "the field \"latest\" must be true or false (true: from the base "
                         "branch's head instead of the recorded commit)");
  }
  bool latest = j.value("latest", false);
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  if (u->state == UnitState::running)
    return error_reply(409, fmt::format("unit {} is still running; re-run it once it has ended "
                                        "(or cancel it)",
                                        u->id));
  if (u->prompt.empty())
    return error_reply(409, fmt::format("unit {} has no recorded task to run again", u->id));
  // `awaywork replay` (cli/cmd_replay.cc): the recorded repository, base, task, agent and
  // profile, cloned afresh as a new unit that records replay_of. The id is [a-z0-9-] and the
  // record's own (valid_unit_id, get): it cannot be taken for an option.
  std::vector<std::string> args = {"replay", u->id};
  if (latest) args.push_back("--latest");
  args.push_back("--json");
  return start_unit(args, "", "replay");
}

Reply Api::marks(const Route& r) {
  auto offset = query_bytes(r, "offset", 0);
  auto end = query_bytes(r, "end", UINT64_MAX);
  if (!offset || !end) return error_reply(400, (!offset ? offset : end).error().message);
  if (*end < *offset)
    return error_reply(400,
                       "query parameter end must not be before offset (the part is [offset, end))");
  auto u = get(r.unit_id);
  if (!u) return error_reply(404, u.error().message);
  auto view = log_marks(u->run_dir, *offset, *end);
  if (!view) return error_reply(500, "reading the log's index: " + view.error().message);
  return json_reply(200, *view);
}

namespace {

// At most the last kMaxSteps: a plain command agent's every line is an event, and a 50 MiB log's
// hundreds of thousands of steps were one 650 ms task for the page to parse and lay out
// (bench/serve/dashboard_bench.mjs). The log holds them all; `total` and `left_out` say so.
constexpr size_t kMaxSteps = 2000;

// What the server keeps between /events requests, so that no request parses a whole file (the
// page polls a running unit's steps every few seconds, and a 50 MiB log's steps file is tens of
// MiB): for events.jsonl the lines counted so far (only the new bytes are counted, and only the
// last kMaxSteps lines parsed); for a recorded events.json, which never changes, the answer
// itself, keyed by the file's identity, size and mtime. A few dozen units at most: the page
// shows one at a time.
struct StepsCache {
  struct Recorded {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    int64_t mtime_ns = 0;
    std::string body;
  };
  std::mutex mu;
  std::map<std::string, StepsCount> counts;
  std::map<std::string, Recorded> recorded;
  static constexpr size_t kKeep = 32;
};

StepsCache& steps_cache() {
  static StepsCache c;
  return c;
}

int64_t steps_mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

Reply Api::events(const std::string& id) {
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  json none = {{"recorded", false}, {"events", json::array()}};
  if (u->run_dir.empty()) return json_reply(200, none);
  StepsCache& cache = steps_cache();
  // events.jsonl: written step by step while the agent runs (unit/transcript_steps.h), redacted
  // of the unit's secrets as the log is. Read from its end: the last kMaxSteps lines.
  std::string steps = u->run_dir + "/events.jsonl";
  if (::access(steps.c_str(), F_OK) == 0) {
    StepsCount seen;
    {
      std::lock_guard lock(cache.mu);
      if (auto it = cache.counts.find(steps); it != cache.counts.end()) seen = it->second;
    }
    auto page = read_steps(steps, kMaxSteps, seen);
    if (!page) return error_reply(500, "reading the agent's steps: " + page.error().message);
    {
      std::lock_guard lock(cache.mu);
      if (cache.counts.size() >= StepsCache::kKeep && !cache.counts.count(steps))
        cache.counts.clear();
      // Two requests at once: either count is right for the bytes it covers (read_steps checks
      // them before it goes on from there), the last one is kept.
      cache.counts[steps] = std::move(seen);
    }
    return json_reply(200, {{"recorded", true},
                            {"events", std::move(page->events)},
                            {"total", page->total},
                            {"left_out", page->left_out}});
  }
  // events.json: a unit recorded before the steps were written as it ran; written once, when
  // the agent phase ended. None ever for a unit that ended before it or recorded no event. Either
  // is {"recorded": false}, not an error: the page says so.
  std::string path = u->run_dir + "/events.json";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return json_reply(200, none);
  {
    std::lock_guard lock(cache.mu);
    auto it = cache.recorded.find(path);
    if (it != cache.recorded.end() && it->second.dev == st.st_dev && it->second.ino == st.st_ino &&
        it->second.size == st.st_size && it->second.mtime_ns == steps_mtime_ns(st))
      return {200, "application/json", it->second.body};
  }
  auto list = read_events(path);
  if (!list) return error_reply(500, "reading the transcript's events: " + list.error().message);
  size_t from = list->size() > kMaxSteps ? list->size() - kMaxSteps : 0;
  json out = json::array();
  for (size_t i = from; i < list->size(); ++i) out.push_back((*list)[i]);
  Reply r = json_reply(
      200, {{"recorded", true}, {"events", out}, {"total", list->size()}, {"left_out", from}});
  {
    std::lock_guard lock(cache.mu);
    if (cache.recorded.size() >= StepsCache::kKeep) cache.recorded.clear();
    cache.recorded[path] = {st.st_dev, st.st_ino, st.st_size, steps_mtime_ns(st), r.body};
  }
  return r;
}

Reply Api::thread(const std::string& id) {
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  Result<std::vector<UnitRecord>> all = [&] {
    std::lock_guard lock(store_mu_);
    return store_.list(kThreadScan);
  }();
  if (!all) return error_reply(500, "reading the record: " + all.error().message);
  return json_reply(200, {{"thread", unit_thread(*u, *all)}});
}

Reply Api::cancel(const std::string& id) {
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  if (u->state != UnitState::running)
    return error_reply(409, fmt::format("unit {} already ended ({}); nothing to cancel", u->id,
                                        to_string(u->state)));
  if (u->runner_pid <= 0 || process_start_time(u->runner_pid) != u->runner_start)
    return error_reply(409,
                       "the unit's runner is gone; the next awaywork command marks it "
                       "interrupted");
  // What Ctrl-C does to `awaywork run`: it kills the phases and records `interrupted`.
  if (::kill(static_cast<pid_t>(u->runner_pid), SIGINT) != 0)
    return error_reply(403, fmt::format("cannot signal the unit's runner (pid {}): {}",
                                        u->runner_pid, errno_text(errno)));
  return json_reply(202, {{"id", u->id}, {"cancelling", true}});
}

Reply Api::apply(const std::string& id) {
  auto u = get(id);
  if (!u) return error_reply(404, u.error().message);
  auto r = capture({self_argv({"apply", u->id, "--json"}), environment(), "", ""});
  if (!r) return error_reply(500, "starting awaywork apply: " + r.error().message);
  auto j = json::parse(r->out, nullptr, false);
  if (r->exit_code != 0 || j.is_discarded())
    return error_reply(409, child_message(r->err, "apply"));
  return json_reply(200, j);
}

Reply Api::doctor() {
  auto r = capture({self_argv({"doctor", "--json"}), environment(), "", ""});
  if (!r) return error_reply(500, "starting awaywork doctor: " + r.error().message);
  auto j = json::parse(r->out, nullptr, false);
  if (j.is_discarded()) return error_reply(500, child_message(r->err, "doctor"));
  j["isolation"] = to_string(ctx_.cfg.isolation);
  return json_reply(200, j);
}

Reply Api::config() {
  json repos = json::array(), agents = json::array(), profiles = json::array();
  for (const auto& [name, _] : ctx_.cfg.repos) repos.push_back(name);
  for (const auto& [name, _] : ctx_.cfg.agents) agents.push_back(name);
  for (const auto& [name, _] : ctx_.cfg.profiles) profiles.push_back(name);
  return json_reply(200, {{"repos", repos},
                          {"agents", agents},
                          {"profiles", profiles},
                          {"default_agent", ctx_.cfg.default_agent},
                          {"isolation", to_string(ctx_.cfg.isolation)},
                          {"unit_minutes", ctx_.cfg.unit_minutes}});
}

Reply Api::metrics() {
  std::lock_guard lock(store_mu_);
  auto text = render_metrics(store_);
  if (!text) return error_reply(500, "reading the record: " + text.error().message);
  return {200, "text/plain; version=0.0.4; charset=utf-8", *text};
}

Result<LogSlice> Api::log_slice(const std::string& id, uint64_t offset, uint64_t end) {
  AW_TRY(UnitRecord u, get(id));
  LogSlice s;
  bool running = u.state == UnitState::running;  // read before the file: then no byte is missed
  constexpr size_t kMax = 256 << 10;
  size_t want = end > offset ? static_cast<size_t>(std::min<uint64_t>(kMax, end - offset)) : 0;
  std::string path = u.run_dir + "/transcript.log";
  // No transcript (yet, or ever) is an empty slice. A transcript that is there but cannot be read
  // is an error, never an empty slice: of an ended unit that would end the log short of its tail.
  FILE* f = std::fopen(path.c_str(), "rbe");
  bool none = !f;
  if (none) {
    if (errno != ENOENT) return fail("open {}: {}", path, errno_text(errno));
  } else {
    bool bad = ::fseeko(f, static_cast<off_t>(offset), SEEK_SET) != 0;
    if (!bad) {
      s.bytes.resize(want);
      s.bytes.resize(std::fread(s.bytes.data(), 1, want, f));
      bad = std::ferror(f) != 0;
    }
    int err = errno;
    std::fclose(f);
    if (bad) return fail("read {} from byte {}: {}", path, offset, errno_text(err));
  }
  bool at_file_end = none || s.bytes.size() < want;  // all there is now was read
  s.caught_up = at_file_end || offset + s.bytes.size() >= end;
  s.ended = !running && at_file_end;
  return s;
}

}  // namespace aw
