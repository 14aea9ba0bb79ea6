// `awaywork probe`: flags, one call into the probe room (isolate/probe/probe.h), the report
// printed.
#include "cli/cmd_probe.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "base/json_write.h"
#include "config/config.h"
#include "isolate/probe/probe.h"
#include "isolate/probe/probes.h"

namespace aw {

int render_probe(const GlobalOptions& g, const ProbeOutcome& o) {
  for (const auto& w : o.warnings)
    fmt::print(stderr, "awaywork probe: doctor: {}\n  (run refuses isolation user until fixed)\n",
               w);
  if (!o.report) {
    fmt::print(stderr, "awaywork probe: {}\n", o.report.error().message);
    return kExitFailed;
  }
  const ProbeReport& r = *o.report;
  if (g.json) {
    nlohmann::json out = r.header;
    out["sandbox"] = r.sandbox_note;
    out["ok"] = r.leaks == 0;
    out["leaks"] = r.leaks;
    out["probes"] = r.results;
    // The header, the note and each probe's detail name paths, users and what the inside said.
    fmt::print("{}\n", json_text(out, 2));
  } else {
    fmt::print("{}, {}\n", r.heading, r.sandbox_note);
    for (const ProbeLine& p : r.lines) {
      if (p.ok)
        fmt::print("ok   {}\n", p.name);
      else
        fmt::print("LEAK {}: {}\n", p.name, p.detail);
    }
    fmt::print("{} probe(s), {} leak(s)\n", r.results.size(), r.leaks);
  }
  return r.leaks == 0 ? kExitDone : kExitFailed;
}

int cmd_probe(const GlobalOptions& g) {
  auto cfg = load_given_config(g.config);
  if (!cfg) {
    fmt::print(stderr, "awaywork probe: {}\n", cfg.error().message);
    return kExitUsage;
  }
  return render_probe(g, probe_isolation(*cfg));
}

int cmd_probe_inside(bool json, const std::string& targets_file) {
  return probe_inside("awaywork __probe-inside", json, targets_file, std::cout, std::cerr);
}

}  // namespace aw
