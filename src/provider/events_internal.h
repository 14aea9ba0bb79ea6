// Inside the provider room: the per-provider line parsers behind EventParser.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "provider/events.h"

namespace aw::events {

using json = nlohmann::json;
using Kind = TranscriptEvent::Kind;

// Collects events with the text cut to kEventTextMax and the count capped at kEventsMax.
class Sink {
 public:
  void add(Kind kind, std::string text, std::string tool = "", int64_t in = 0, int64_t out = 0,
           double cost_usd = 0);
  // What was added since the last take_so_far, without the dropped notice.
  std::vector<TranscriptEvent> take_so_far() { return std::exchange(events_, {}); }
  std::vector<TranscriptEvent> take();  // the rest, the dropped notice, and the cap starts over

 private:
  std::vector<TranscriptEvent> events_;
  size_t kept_ = 0;  // events added since take(): the cap counts those taken so far too
  size_t dropped_ = 0;
};

class LineParser {
 public:
  virtual ~LineParser() = default;
  virtual void line(std::string_view raw, Sink& out) = 0;
  virtual void finish(Sink&) {}
};

std::unique_ptr<LineParser> make_stream_json_parser();  // claude and cursor-agent
std::unique_ptr<LineParser> make_codex_parser();
std::unique_ptr<LineParser> make_gemini_parser();
std::unique_ptr<LineParser> make_opencode_parser();

// A JSON object, or nothing (not JSON, not an object). Values nested deeper than a few dozen
// levels are dropped while parsing so that nothing later recurses deeply on hostile input.
std::optional<json> parse_object(std::string_view raw);
// j[key] when it is a string, else "".
std::string str(const json& j, const char* key);
// j[key] when it is an integer >= 0, else 0.
int64_t num(const json& j, const char* key);
// j[key] when it is a finite number >= 0 (an amount of money: a fraction), else 0.
double amount(const json& j, const char* key);
// j[key] when it is an object/array, else an empty one (so lookups chain safely).
const json& obj(const json& j, const char* key);
const json& arr(const json& j, const char* key);
// Compact JSON of any value, invalid UTF-8 replaced; a string stays itself.
std::string compact(const json& j);
std::string truncate_text(std::string s, size_t max = kEventTextMax);

// Tool names by call id, bounded so a hostile stream cannot grow it without end.
class CallNames {
 public:
  void put(const std::string& id, const std::string& name);
  std::string get(const std::string& id) const;

 private:
  std::map<std::string, std::string> names_;
};

// Lines that were not JSON events: counted and reported once at the end.
class Unparsed {
 public:
  void count(std::string_view raw);
  void report(Sink& out) const;

 private:
  size_t n_ = 0;
};

}  // namespace aw::events
