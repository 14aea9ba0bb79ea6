#include "serve/metrics.h"

namespace aw {

std::string prometheus_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

namespace {

// Per forge API: what awaywork's clients sent, the 304s among them apart (GitHub does not count a
// 304 against its rate limit; gitlab.com does, so there they show only how much polling found
// nothing new), retries, time waited on limits, and the rate limit as last seen.
std::string forge_metrics(const std::vector<ForgeUsage>& forges) {
  struct Family {
    const char *name, *type, *help;
    int64_t ForgeUsage::*field;
    bool known_only;  // -1 (never seen) is left out
  };
  static const Family families[] = {
      {"awaywork_forge_requests_total", "counter", "Requests sent to the forge API.",
       &ForgeUsage::requests, false},
      {"awaywork_forge_not_modified_total", "counter",
       "Conditional requests the forge answered 304 (GitHub does not count them against its rate "
       "limit; GitLab does).",
       &ForgeUsage::not_modified, false},
      {"awaywork_forge_retries_total", "counter",
       "Requests sent again after a secondary limit or a server error.", &ForgeUsage::retries,
       false},
      {"awaywork_forge_rate_limit_remaining", "gauge",
       "Requests left in the primary rate limit's window, as last seen.",
       &ForgeUsage::rate_remaining, true},
      {"awaywork_forge_rate_limit_limit", "gauge", "The primary rate limit, as last seen.",
       &ForgeUsage::rate_limit, true},
      {"awaywork_forge_rate_limit_reset_seconds", "gauge",
       "When the primary rate limit's window resets (Unix time), as last seen.",
       &ForgeUsage::rate_reset, true},
  };
  std::string out;
  for (const auto& f : families) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
    for (const auto& u : forges)
      if (!f.known_only || u.*f.field >= 0)
        out += fmt::format("{}{{api=\"{}\"}} {}\n", f.name, prometheus_label(u.api), u.*f.field);
  }
  out +=
      "# HELP awaywork_forge_waited_seconds_total Time spent waiting out the forge's limits.\n"
      "# TYPE awaywork_forge_waited_seconds_total counter\n";
  for (const auto& u : forges)
    out += fmt::format("awaywork_forge_waited_seconds_total{{api=\"{}\"}} {:.3f}\n",
                       prometheus_label(u.api), static_cast<double>(u.waited_ms) / 1000.0);
  return out;
}

}  // namespace

Result<std::string> render_metrics(Store& store) {
  AW_TRY(auto states, store.count_by_state());
  AW_TRY(auto phases, store.phase_stats());
  std::string out =
      "# HELP awaywork_units Units in the record, by state.\n# TYPE awaywork_units gauge\n";
  for (const char* s :
       {"running", "done", "failed", "timed_out", "lost", "interrupted", "refused", "skipped"}) {
    int64_t n = 0;
    for (const auto& [name, count] : states)
      if (name == s) n = count;
    out += fmt::format("awaywork_units{{state=\"{}\"}} {}\n", s, n);
  }
  out +=
      "# HELP awaywork_phase_duration_seconds Time the recorded phases took, by phase name.\n"
      "# TYPE awaywork_phase_duration_seconds summary\n";
  for (const auto& p : phases) {
    std::string label = prometheus_label(p.name);
    out += fmt::format("awaywork_phase_duration_seconds_sum{{phase=\"{}\"}} {:.3f}\n", label,
                       static_cast<double>(p.total_ms) / 1000.0);
    out +=
        fmt::format("awaywork_phase_duration_seconds_count{{phase=\"{}\"}} {}\n", label, p.count);
  }
  AW_TRY(auto forges, store.forge_usage());
  out += forge_metrics(forges);
  return out;
}

}  // namespace aw
