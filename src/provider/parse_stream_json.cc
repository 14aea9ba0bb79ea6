// Claude Code `-p --output-format stream-json --verbose` (captured from 2.1.332) and
// cursor-agent's stream-json (documented by Cursor; same envelope plus "tool_call" lines).
#include <fmt/format.h>

#include "base/gcc_quirks.h"
#include "provider/events_internal.h"

namespace aw::events {

namespace {

// tool_result content: a string, or blocks of which the text ones count.
std::string result_text(const json& block) {
  auto it = block.find("content");
  if (it == block.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  std::string out;
  if (!it->is_array()) return out;
  for (const auto& b : *it) {
    if (!b.is_object() || str(b, "type") != "text") continue;
    AW_NO_WRESTRICT(out += (out.empty() ? "" : "\n") + str(b, "text");)  // base/gcc_quirks.h
  }
  return out;
}

// cursor-agent: {"tool_call": {"readToolCall": {"args": ..., "result": ...}}} or
// {"tool_call": {"function": {"name": ..., "arguments": ...}}}.
std::pair<std::string, const json*> cursor_tool(const json& line) {
  const json& call = obj(line, "tool_call");
  for (auto it = call.begin(); it != call.end(); ++it) {
    if (!it->is_object()) continue;
    std::string name = it.key();
    if (name == "function") return {str(*it, "name"), &*it};
    const std::string suffix = "ToolCall";
    if (name.size() > suffix.size() && name.ends_with(suffix))
      name.resize(name.size() - suffix.size());
    return {name, &*it};
  }
  return {"", nullptr};
}

class StreamJsonParser final : public LineParser {
 public:
  void line(std::string_view raw, Sink& out) override {
    auto j = parse_object(raw);
    if (!j) return unparsed_.count(raw);
    std::string type = str(*j, "type");
    if (type == "assistant")
      assistant(*j, out);
    else if (type == "user")
      user(*j, out);
    else if (type == "tool_call")
      tool_call(*j, out);
    else if (type == "result")
      result(*j, out);
    else if (type == "system" && str(*j, "subtype") == "api_retry")
      out.add(Kind::error,
              fmt::format("API retry {}/{}: HTTP {} {}", num(*j, "attempt"), num(*j, "max_retries"),
                          num(*j, "error_status"), str(*j, "error")));
  }
  void finish(Sink& out) override { unparsed_.report(out); }

 private:
  void assistant(const json& j, Sink& out) {
    for (const auto& b : arr(obj(j, "message"), "content")) {
      if (!b.is_object()) continue;
      std::string t = str(b, "type");
      if (t == "text") {
        // A synthetic assistant line carrying "error" is the CLI reporting an API failure.
        out.add(str(j, "error").empty() ? Kind::message : Kind::error, str(b, "text"));
      } else if (t == "tool_use") {
        names_.put(str(b, "id"), str(b, "name"));
        out.add(Kind::tool_call, compact(b.contains("input") ? b["input"] : json()),
                str(b, "name"));
      }
    }
  }

  void user(const json& j, Sink& out) {
    // Text blocks of a user line are the prompt echoed (cursor); only tool results count.
    for (const auto& b : arr(obj(j, "message"), "content")) {
      if (!b.is_object() || str(b, "type") != "tool_result") continue;
      bool is_error =
          b.contains("is_error") && b["is_error"].is_boolean() && b["is_error"].get<bool>();
      out.add(Kind::tool_result, (is_error ? "error: " : "") + result_text(b),
              names_.get(str(b, "tool_use_id")));
    }
  }

  void tool_call(const json& j, Sink& out) {
    auto [name, call] = cursor_tool(j);
    if (call == nullptr) return;
    std::string sub = str(j, "subtype");
    if (sub == "started") {
      const json& args = call->contains("args") ? (*call)["args"] : obj(*call, "arguments");
      out.add(Kind::tool_call, compact(call->contains("arguments") ? (*call)["arguments"] : args),
              name);
    } else if (sub == "completed") {
      out.add(Kind::tool_result, compact(call->contains("result") ? (*call)["result"] : json()),
              name);
    }
  }

  void result(const json& j, Sink& out) {
    // Claude: snake_case; cursor-agent (when it reports usage): camelCase. Claude's
    // total_cost_usd is the whole run's (one result line per `claude -p`).
    const json& u = obj(j, "usage");
    double cost = amount(j, "total_cost_usd");
    if (!u.empty() || cost > 0)
      out.add(Kind::usage, "", "",
              num(u, "input_tokens") + num(u, "cache_creation_input_tokens") +
                  num(u, "cache_read_input_tokens") + num(u, "inputTokens") +
                  num(u, "cacheReadTokens") + num(u, "cacheWriteTokens"),
              num(u, "output_tokens") + num(u, "outputTokens"), cost);
    bool is_error =
        j.contains("is_error") && j["is_error"].is_boolean() && j["is_error"].get<bool>();
    std::string sub = str(j, "subtype");
    if (is_error || sub.starts_with("error")) {
      std::string text = str(j, "result");
      for (const auto& e : arr(j, "errors")) text += (text.empty() ? "" : "; ") + compact(e);
      if (text.empty()) text = "run ended with " + sub;
      if (num(j, "api_error_status") > 0)
        text += fmt::format(" (HTTP {})", num(j, "api_error_status"));
      out.add(Kind::error, text);
    }
  }

  CallNames names_;
  Unparsed unparsed_;
};

}  // namespace

std::unique_ptr<LineParser> make_stream_json_parser() {
  return std::make_unique<StreamJsonParser>();
}

}  // namespace aw::events
