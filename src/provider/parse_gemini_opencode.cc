// gemini `--output-format stream-json` (event types read from @google/gemini-cli 0.61.0's
// bundle: init, message, tool_use, tool_result, error, result) and opencode
// `run --format json` (from opencode 1.18.33: text, tool_use, step_start, step_finish,
// reasoning, error; each with a "part").
#include <fmt/format.h>

#include "provider/events_internal.h"

namespace aw::events {

namespace {

class GeminiParser final : public LineParser {
 public:
  void line(std::string_view raw, Sink& out) override {
    auto j = parse_object(raw);
    if (!j) return unparsed_.count(raw);
    std::string type = str(*j, "type");
    // Assistant text arrives as deltas: one message per run of them.
    if (type == "message" && str(*j, "role") == "assistant") {
      if (pending_.size() < kEventTextMax * 2) pending_ += str(*j, "content");
      return;
    }
    flush(out);
    if (type == "tool_use") {
      names_.put(str(*j, "tool_id"), str(*j, "tool_name"));
      out.add(Kind::tool_call, compact(j->contains("parameters") ? (*j)["parameters"] : json()),
              str(*j, "tool_name"));
    } else if (type == "tool_result") {
      bool err = str(*j, "status") == "error";
      std::string text = err ? "error: " + str(obj(*j, "error"), "message") : str(*j, "output");
      out.add(Kind::tool_result, text, names_.get(str(*j, "tool_id")));
    } else if (type == "error") {
      out.add(Kind::error, str(*j, "message"));
    } else if (type == "result") {
      const json& s = obj(*j, "stats");
      if (!s.empty()) out.add(Kind::usage, "", "", num(s, "input_tokens"), num(s, "output_tokens"));
      if (str(*j, "status") == "error") out.add(Kind::error, str(obj(*j, "error"), "message"));
    }
  }
  void finish(Sink& out) override {
    flush(out);
    unparsed_.report(out);
  }

 private:
  void flush(Sink& out) {
    if (!pending_.empty()) out.add(Kind::message, std::exchange(pending_, {}));
  }

  std::string pending_;
  CallNames names_;
  Unparsed unparsed_;
};

class OpencodeParser final : public LineParser {
 public:
  void line(std::string_view raw, Sink& out) override {
    auto j = parse_object(raw);
    if (!j) return unparsed_.count(raw);
    std::string type = str(*j, "type");
    const json& part = obj(*j, "part");
    if (type == "text") {
      out.add(Kind::message, str(part, "text"));
    } else if (type == "tool_use") {
      const json& state = obj(part, "state");
      std::string tool = str(part, "tool");
      out.add(Kind::tool_call, compact(state.contains("input") ? state["input"] : json()), tool);
      if (str(state, "status") == "error")
        out.add(Kind::tool_result,
                "error: " + compact(state.contains("error") ? state["error"] : json()), tool);
      else
        out.add(Kind::tool_result, str(state, "output"), tool);
    } else if (type == "step_finish") {
      const json& t = obj(part, "tokens");
      const json& cache = obj(t, "cache");
      // Each step's own cost (they add up to the run's).
      out.add(Kind::usage, "", "", num(t, "input") + num(cache, "read") + num(cache, "write"),
              num(t, "output") + num(t, "reasoning"), amount(part, "cost"));
    } else if (type == "error") {
      const json& e = obj(*j, "error");
      std::string msg = str(obj(e, "data"), "message");
      out.add(Kind::error, msg.empty() ? str(e, "name") : msg);
    }
  }
  void finish(Sink& out) override { unparsed_.report(out); }

 private:
  Unparsed unparsed_;
};

}  // namespace

std::unique_ptr<LineParser> make_gemini_parser() {
  return std::make_unique<GeminiParser>();
}
std::unique_ptr<LineParser> make_opencode_parser() {
  return std::make_unique<OpencodeParser>();
}

}  // namespace aw::events
