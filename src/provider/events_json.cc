// events.json: the recorded transcript of a run, read back by `show ID`.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/inert.h"
#include "base/json_read.h"
#include "base/json_write.h"
#include "provider/events.h"

namespace aw {

namespace {
constexpr const char* kKinds[] = {"message", "tool_call", "tool_result", "error", "usage"};
}  // namespace

std::string_view to_string(TranscriptEvent::Kind k) {
  return kKinds[static_cast<int>(k)];
}

void to_json(nlohmann::json& j, const TranscriptEvent& e) {
  j = nlohmann::json{{"kind", to_string(e.kind)}, {"text", e.text}};
  if (!e.tool.empty()) j["tool"] = e.tool;
  if (e.kind == TranscriptEvent::Kind::usage) {
    j["input_tokens"] = e.input_tokens;
    j["output_tokens"] = e.output_tokens;
    if (e.cost_usd > 0) j["cost_usd"] = e.cost_usd;
  }
}

namespace {

// One event read back through JsonRead (`path` names the file): a wrongly typed field is an Error
// naming it ("events[3].text"), never a throw. An unknown kind is quoted through inert(): the file
// may be corrupt or planted, and the error goes to a terminal.
Result<TranscriptEvent> event_from(const JsonRead& j, const std::string& path) {
  TranscriptEvent e;
  AW_TRY(std::string kind, j.str("kind"));
  bool known = false;
  for (int i = 0; i < 5; ++i)
    if (kind == kKinds[i]) {
      e.kind = static_cast<TranscriptEvent::Kind>(i);
      known = true;
    }
  if (!known)
    return fail("{}: field \"{}.kind\": unknown event kind '{}'", path, j.path(), inert(kind));
  AW_TRY(e.text, j.str_or("text", ""));
  AW_TRY(e.tool, j.str_or("tool", ""));
  AW_TRY(e.input_tokens, j.int_or("input_tokens", int64_t{0}));
  AW_TRY(e.output_tokens, j.int_or("output_tokens", int64_t{0}));
  if (j.has("cost_usd")) {
    AW_TRY(e.cost_usd, j.number("cost_usd"));
    if (!std::isfinite(e.cost_usd) || e.cost_usd < 0)
      return fail("{}: field \"{}.cost_usd\": not an amount: {}", path, j.path(), e.cost_usd);
  }
  return e;
}

// The texts are the agent's: control characters (terminal escapes) are shown, never sent
// (base/inert.h); a newline goes on under the event's column, a tab is a space.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : inert(text)) {
    if (c == '\n')
      out += "\n               ";
    else
      out += c == '\t' ? ' ' : c;
  }
  return out;
}

// A cost as the CLI's figure reads: "$0.0237" (4 decimals: a run costs cents), "<$0.0001".
std::string usd(double v) {
  return v < 0.00005 ? "<$0.0001" : fmt::format("${:.4f}", v);
}

std::string first_lines(const std::string& text, int max_lines) {
  size_t pos = 0;
  int lines = 0;
  while (lines < max_lines && (pos = text.find('\n', pos)) != std::string::npos) ++lines, ++pos;
  if (lines == max_lines && pos < text.size()) return text.substr(0, pos - 1) + " …";
  return text;
}

}  // namespace

std::string render_events(const std::vector<TranscriptEvent>& events) {
  std::string out = fmt::format("transcript ({} event(s)):\n", events.size());
  int64_t in = 0, outt = 0;
  double cost = 0;
  for (const auto& e : events) {
    if (e.kind == TranscriptEvent::Kind::usage) {
      in += e.input_tokens;
      outt += e.output_tokens;
      cost += e.cost_usd;
      continue;
    }
    std::string head = e.tool.empty() ? "" : printable(e.tool) + "  ";
    out +=
        fmt::format("  {:<12} {}{}\n", to_string(e.kind), head, printable(first_lines(e.text, 6)));
  }
  if (in > 0 || outt > 0 || cost > 0)
    out += fmt::format("  {:<12} {} input, {} output tokens{}\n", "usage", in, outt,
                       cost > 0 ? fmt::format(", {} (the CLI's figure)", usd(cost)) : "");
  return out;
}

Status write_events(const std::string& path, const std::vector<TranscriptEvent>& events) {
  nlohmann::json doc = {{"events", events}};
  // The texts come from hostile output: invalid UTF-8 is replaced instead of failing the dump.
  std::string data = json_text(doc, 1) + "\n";
  std::string tmp = path + ".tmp";
  AW_CHECK(write_file(tmp, data, 0600));
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("rename {} to {}: {}", tmp, path, errno_text(errno));
  return {};
}

Result<std::vector<TranscriptEvent>> read_events(const std::string& path) {
  AW_TRY(std::string data, read_file(path, 64u << 20));
  auto doc = nlohmann::json::parse(data, nullptr, false);
  if (doc.is_discarded()) return fail("{}: not a transcript: not JSON", path);
  JsonRead r(doc, path);
  AW_TRY(std::vector<JsonRead> items, r.array("events"));
  std::vector<TranscriptEvent> events;
  events.reserve(items.size());
  for (const JsonRead& j : items) {
    AW_TRY(TranscriptEvent e, event_from(j, path));
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace aw
