#include "check/verdict.h"

#include <fmt/format.h>
#include <utf8proc.h>

#include "base/inert.h"

namespace aw {
namespace {

// JSON text must be UTF-8; a refused path may not be. Invalid bytes become U+FFFD.
std::string utf8(std::string_view s) {
  std::string o;
  for (size_t i = 0; i < s.size();) {
    utf8proc_int32_t cp;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                              utf8proc_ssize_t(s.size() - i), &cp);
    if (n <= 0) {
      o += "\xEF\xBF\xBD";
      ++i;
    } else {
      o.append(s.data() + i, size_t(n));
      i += size_t(n);
    }
  }
  return o;
}

std::vector<std::string> utf8(const std::vector<std::string>& v) {
  std::vector<std::string> o;
  for (const auto& s : v) o.push_back(utf8(s));
  return o;
}

}  // namespace

// Details and paths come from hostile input (a refused patch's path, what it held): each is shown
// on a line of its own, inert (base/inert.h), so a newline cannot forge another line and no
// control sequence, C1 or bidi override reaches the terminal.
std::string render_text(const Verdict& v) {
  std::string out =
      v.accepted ? "accepted" : fmt::format("refused ({} reasons)", v.refusals.size());
  out += fmt::format("\npatch: {} files, {} bytes, +{} -{}\n", v.stats.files, v.stats.bytes,
                     v.stats.added_lines, v.stats.removed_lines);
  for (const auto& r : v.refusals) {
    out += fmt::format("  {} [{}]", r.rule, r.source);
    if (r.line) out += fmt::format(" line {}", r.line);
    if (!r.path.empty()) out += fmt::format(" {}", inert_line(r.path));
    out += fmt::format(": {}\n", inert_line(r.detail));
  }
  if (v.accepted)
    for (const auto& p : v.paths) out += fmt::format("  changed {}\n", inert_line(p));
  for (const auto& p : v.omitted)
    out += fmt::format("  omitted (untracked binary) {}\n", inert_line(p));
  for (const auto& r : v.requests) out += fmt::format("  request {} (line {})\n", r.type, r.line);
  return out;
}

nlohmann::json to_json(const Verdict& v) {
  nlohmann::json refusals = nlohmann::json::array();
  for (const auto& r : v.refusals)
    refusals.push_back({{"rule", r.rule},
                        {"source", r.source},
                        {"path", utf8(r.path)},
                        {"line", r.line},
                        {"detail", utf8(r.detail)}});
  nlohmann::json requests = nlohmann::json::array();
  for (const auto& r : v.requests) requests.push_back(to_json(r));
  nlohmann::json j = {{"accepted", v.accepted},
                      {"refusals", refusals},
                      {"paths", utf8(v.paths)},
                      {"omitted", utf8(v.omitted)},
                      {"requests", requests},
                      {"stats",
                       {{"bytes", v.stats.bytes},
                        {"files", v.stats.files},
                        {"added_lines", v.stats.added_lines},
                        {"removed_lines", v.stats.removed_lines}}}};
  return j;
}

}  // namespace aw
