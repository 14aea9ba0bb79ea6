// events.json: the recorded transcript of a run, read back by `show ID`.
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/inert.h"
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
  }
}

void from_json(const nlohmann::json& j, TranscriptEvent& e) {
  std::string kind = j.at("kind").get<std::string>();
  bool known = false;
  for (int i = 0; i < 5; ++i)
    if (kind == kKinds[i]) {
      e.kind = static_cast<TranscriptEvent::Kind>(i);
      known = true;
    }
  if (!known) throw std::invalid_argument("unknown event kind '" + kind + "'");
  e.text = j.value("text", "");
  e.tool = j.value("tool", "");
  e.input_tokens = j.value("input_tokens", int64_t{0});
  e.output_tokens = j.value("output_tokens", int64_t{0});
}

namespace {

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
  for (const auto& e : events) {
    if (e.kind == TranscriptEvent::Kind::usage) {
      in += e.input_tokens;
      outt += e.output_tokens;
      continue;
    }
    std::string head = e.tool.empty() ? "" : printable(e.tool) + "  ";
    out +=
        fmt::format("  {:<12} {}{}\n", to_string(e.kind), head, printable(first_lines(e.text, 6)));
  }
  if (in > 0 || outt > 0)
    out += fmt::format("  {:<12} {} input, {} output tokens\n", "usage", in, outt);
  return out;
}

Status write_events(const std::string& path, const std::vector<TranscriptEvent>& events) {
  nlohmann::json doc = {{"events", events}};
  // The texts come from hostile output: invalid UTF-8 is replaced instead of failing the dump.
  std::string data = doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string tmp = path + ".tmp";
  AW_CHECK(write_file(tmp, data, 0600));
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("rename {} to {}: {}", tmp, path, errno_text(errno));
  return {};
}

Result<std::vector<TranscriptEvent>> read_events(const std::string& path) {
  AW_TRY(std::string data, read_file(path, 64u << 20));
  try {
    auto doc = nlohmann::json::parse(data);
    return doc.at("events").get<std::vector<TranscriptEvent>>();
  } catch (const std::exception& e) {
    return fail("{}: not a transcript: {}", path, e.what());
  }
}

}  // namespace aw
