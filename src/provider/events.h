// Transcript events: what an agent said and did, parsed from its CLI's machine output (claude and
// cursor stream-json, codex `exec --json`, gemini stream-json, opencode `run --format json`).
// The output is hostile: any byte sequence, chunked anyhow, only ever yields events or nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace aw {

struct TranscriptEvent {
  enum class Kind { message, tool_call, tool_result, error, usage };
  Kind kind = Kind::message;
  std::string text;  // at most kEventTextMax bytes (cut on a UTF-8 boundary, "…" appended)
  std::string tool;  // tool name for tool_call / tool_result
  int64_t input_tokens = 0;   // usage: every input token the model read (cached ones too)
  int64_t output_tokens = 0;  // usage
  // usage: what the CLI said the run cost, in US dollars, as it printed it (Claude Code's
  // total_cost_usd, opencode's per-step cost); 0 when it said nothing. Its own figure, not
  // awaywork's estimate: a CLI that prints none (codex, gemini) has none.
  double cost_usd = 0;
  bool operator==(const TranscriptEvent&) const = default;
};

inline constexpr size_t kEventTextMax = 2048;
// A line longer than this is skipped (and an error event says so): bounds memory on hostile output.
inline constexpr size_t kEventLineMax = 8u << 20;
// Events kept per run; past it one error event says how many were dropped.
inline constexpr size_t kEventsMax = 20000;

std::string_view to_string(TranscriptEvent::Kind k);
void to_json(nlohmann::json& j, const TranscriptEvent& e);

// Splits stdout into lines and turns each into events with the provider's line parser.
class EventParser {
 public:
  // claude | cursor | codex | gemini | opencode | command (plain text lines become messages);
  // an unknown name parses like command.
  explicit EventParser(std::string_view provider);
  ~EventParser();
  EventParser(EventParser&&) noexcept;
  EventParser& operator=(EventParser&&) noexcept;

  void feed(std::string_view stdout_bytes);  // any chunking
  // The events of the lines ended so far, taken out (the steps written while the agent runs,
  // unit/transcript_steps.h); the cap of kEventsMax still counts them until finish().
  std::vector<TranscriptEvent> take();
  std::vector<TranscriptEvent> finish();  // flushes a last line without '\n'; then empty

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for a whole capture.
std::vector<TranscriptEvent> parse_events(std::string_view provider, std::string_view output);
// The same from a recorded stdout file, read in chunks without following a final link.
Result<std::vector<TranscriptEvent>> parse_events_file(std::string_view provider,
                                                       const std::string& path);

// For `show ID`: one line per event ("  tool_call    Write  {...}"), long texts cut to a few
// lines, usage summed at the end.
std::string render_events(const std::vector<TranscriptEvent>& events);

// runs/<id>/events.json: {"events": [...]} written atomically with mode 0600.
Status write_events(const std::string& path, const std::vector<TranscriptEvent>& events);
Result<std::vector<TranscriptEvent>> read_events(const std::string& path);

}  // namespace aw
