// `codex exec --json` (captured from 0.171.0): thread/turn/item events, one JSON object a line.
// Only item.completed is read: item.started repeats the same item without its outcome.
#include <fmt/format.h>

#include "provider/events_internal.h"

namespace aw::events {

namespace {

class CodexParser final : public LineParser {
 public:
  void line(std::string_view raw, Sink& out) override {
    auto j = parse_object(raw);
    if (!j) return unparsed_.count(raw);
    std::string type = str(*j, "type");
    if (type == "item.completed") {
      item(obj(*j, "item"), out);
    } else if (type == "turn.completed") {
      const json& u = obj(*j, "usage");
      // cached_input_tokens is a part of input_tokens in OpenAI's accounting, not extra.
      out.add(Kind::usage, "", "", num(u, "input_tokens"), num(u, "output_tokens"));
    } else if (type == "turn.failed") {
      out.add(Kind::error, str(obj(*j, "error"), "message"));
    } else if (type == "error") {
      out.add(Kind::error, str(*j, "message"));
    }
  }
  void finish(Sink& out) override { unparsed_.report(out); }

 private:
  static void item(const json& it, Sink& out) {
    std::string type = str(it, "type");
    if (type == "agent_message") {
      out.add(Kind::message, str(it, "text"));
    } else if (type == "command_execution") {
      out.add(Kind::tool_call, str(it, "command"), "command");
      std::string code = it.contains("exit_code") && it["exit_code"].is_number_integer()
                             ? std::to_string(it["exit_code"].get<int64_t>())
                             : "none";
      out.add(Kind::tool_result, fmt::format("exit {}\n{}", code, str(it, "aggregated_output")),
              "command");
    } else if (type == "file_change") {
      std::string text;
      for (const auto& c : arr(it, "changes"))
        if (c.is_object())
          text += fmt::format("{}{} {}", text.empty() ? "" : "\n", str(c, "kind"), str(c, "path"));
      out.add(Kind::tool_call, text, "file_change");
      if (str(it, "status") == "failed") out.add(Kind::tool_result, "error: failed", "file_change");
    } else if (type == "mcp_tool_call") {
      std::string name = str(it, "server") + "." + str(it, "tool");
      out.add(Kind::tool_call, compact(it.contains("arguments") ? it["arguments"] : json()), name);
      if (it.contains("error") && it["error"].is_object())
        out.add(Kind::tool_result, "error: " + str(it["error"], "message"), name);
      else if (it.contains("result"))
        out.add(Kind::tool_result, compact(it["result"]), name);
    } else if (type == "web_search") {
      out.add(Kind::tool_call, str(it, "query"), "web_search");
    } else if (type == "error") {
      out.add(Kind::error, str(it, "message"));
    }
  }

  Unparsed unparsed_;
};

}  // namespace

std::unique_ptr<LineParser> make_codex_parser() {
  return std::make_unique<CodexParser>();
}

}  // namespace aw::events
