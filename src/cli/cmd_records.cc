// `units` and `show`: reading the record.
#include <unistd.h>

#include <nlohmann/json.hpp>

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
  AW_TRY(Config cfg,
         load_config(g.config.empty() ? default_config_path() : g.config, !g.config.empty()));
  AW_TRY(Store store, Store::open(state_dir_of(cfg)));
  recover_abandoned(cfg, store);
  return store;
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
  if (g.json) {
    auto j = to_json(*unit);
    if (events && !events->empty()) j["events"] = *events;
    fmt::print("{}\n", json_text(j, 2));
  } else {
    fmt::print("{}", render_detail(*unit));
    if (!events)
      fmt::print("transcript: {}\n", events.error().message);
    else if (!events->empty())
      fmt::print("{}", render_events(*events));
  }
  return kExitDone;
}

}  // namespace aw
