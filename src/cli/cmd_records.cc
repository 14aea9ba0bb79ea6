// `units` and `show`: reading the record.
#include <unistd.h>

#include <algorithm>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "cli/commands.h"
#include "cli/render.h"
#include "config/config.h"
#include "provider/events.h"
#include "record/store.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

Result<Store> open_store(const GlobalOptions& g) {
  AW_TRY(Config cfg, load_given_config(g.config));
  AW_TRY(Store store, Store::open(state_dir_of(cfg)));
  recover_abandoned(cfg, store);
  return store;
}

InjectedUse& use_of(std::vector<InjectedUse>& use, const std::string& name) {
  for (auto& u : use)
    if (u.name == name) return u;
  use.push_back({name, {}, 0, {}});
  return use.back();
}

void add_once(std::vector<std::string>& list, const std::string& s) {
  if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
}

// The unit's egress log (runs/<id>/egress.log: one JSON object per request, written by the egress
// proxy, proxy/egress_proxy.cc): which injected secrets were added where (`"injected":"A,B"` on an
// allowed request) and which placeholders were refused (rule `deny placeholder-exfiltration
// NAME`). A line that is not such an object (a crash cut it short) is skipped.
std::vector<InjectedUse> injected_use(std::string_view log) {
  constexpr std::string_view kStray = "deny placeholder-exfiltration ";
  std::vector<InjectedUse> use;
  while (!log.empty()) {
    size_t nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    log.remove_prefix(nl == std::string_view::npos ? log.size() : nl + 1);
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("host") || !j["host"].is_string()) continue;
    std::string host = j["host"];
    if (j.contains("injected") && j["injected"].is_string() && j.value("allowed", false)) {
      std::string names = j["injected"];
      for (size_t at = 0; at <= names.size();) {
        size_t comma = std::min(names.find(',', at), names.size());
        if (comma > at) {
          InjectedUse& u = use_of(use, names.substr(at, comma - at));
          ++u.requests;
          add_once(u.hosts, host);
        }
        at = comma + 1;
      }
    }
    if (j.contains("rule") && j["rule"].is_string()) {
      std::string rule = j["rule"];
      if (rule.rfind(kStray, 0) == 0 && rule.size() > kStray.size())
        add_once(use_of(use, rule.substr(kStray.size())).refused, host);
    }
  }
  return use;
}

}  // namespace

int cmd_units(const GlobalOptions& g) {
  auto store = open_store(g);
  auto units = store ? store->list(200) : tl::unexpected<Error>(store.error());
  if (!units) {
    fmt::print(stderr, "awaywork units: {}\n", units.error().message);
    return kExitUsage;
  }
  if (g.json) {
    auto arr = nlohmann::json::array();
    for (const auto& u : *units) arr.push_back(to_json(u));
    fmt::print("{}\n", json_text(arr, 2));
  } else {
    fmt::print("{}", render_table(*units));
  }
  return kExitDone;
}

int cmd_show(const GlobalOptions& g, const std::string& id) {
  auto store = open_store(g);
  auto unit = store ? store->get(id) : tl::unexpected<Error>(store.error());
  if (!unit) {
    fmt::print(stderr, "awaywork show: {}\n", unit.error().message);
    return kExitUsage;
  }
  // The agent phase's transcript, when the unit recorded one (runs/<id>/events.json).
  std::string events_path = unit->run_dir + "/events.json";
  auto events = ::access(events_path.c_str(), F_OK) == 0
                    ? read_events(events_path)
                    : Result<std::vector<TranscriptEvent>>(std::vector<TranscriptEvent>{});
  // Which injected secrets the unit's requests actually got (the record's notes name those it
  // was given), from its egress log, when it has one.
  std::string log_path = unit->run_dir + "/egress.log";
  std::vector<InjectedUse> used;
  std::string log_error;
  if (::access(log_path.c_str(), F_OK) == 0) {
    if (auto text = read_file(log_path); text)
      used = injected_use(*text);
    else
      log_error = text.error().message;
  }
  if (g.json) {
    auto j = to_json(*unit);
    if (events && !events->empty()) j["events"] = *events;
    if (!used.empty()) {
      auto arr = nlohmann::json::array();
      for (const auto& u : used)
        arr.push_back({{"name", u.name},
                       {"hosts", u.hosts},
                       {"requests", u.requests},
                       {"refused", u.refused}});
      j["injected_used"] = std::move(arr);
    }
    if (!log_error.empty()) j["egress_log_error"] = log_error;
    fmt::print("{}\n", json_text(j, 2));
  } else {
    fmt::print("{}", render_detail(*unit));
    fmt::print("{}", render_injected_use(used));
    if (!log_error.empty()) fmt::print("egress log: {}\n", log_error);
    if (!events)
      fmt::print("transcript: {}\n", events.error().message);
    else if (!events->empty())
      fmt::print("{}", render_events(*events));
  }
  return kExitDone;
}

}  // namespace aw
