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

Result<std::string> render_metrics(Store& store) {
  AW_TRY(auto states, store.count_by_state());
  AW_TRY(auto phases, store.phase_stats());
  std::string out =
      "# HELP awaywork_units Units in the record, by state.\n# TYPE awaywork_units gauge\n";
  for (const char* s :
       {"running", "done", "failed", "timed_out", "lost", "interrupted", "refused"}) {
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
  return out;
}

}  // namespace aw
