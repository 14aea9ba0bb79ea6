#include "provider/events.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "base/fs.h"
#include "base/json_write.h"
#include "provider/events_internal.h"

namespace aw {

namespace events {

void Sink::add(Kind kind, std::string text, std::string tool, int64_t in, int64_t out,
               double cost_usd) {
  if (kept_ >= kEventsMax) {
    ++dropped_;
    return;
  }
  ++kept_;
  TranscriptEvent e;
  e.kind = kind;
  e.text = truncate_text(std::move(text));
  e.tool = truncate_text(std::move(tool), 200);
  e.input_tokens = in;
  e.output_tokens = out;
  e.cost_usd = cost_usd;
  events_.push_back(std::move(e));
}

std::vector<TranscriptEvent> Sink::take() {
  if (dropped_ > 0) {
    TranscriptEvent e;
    e.kind = Kind::error;
    e.text = fmt::format("{} more event(s) dropped: a transcript keeps at most {}", dropped_,
                         kEventsMax);
    events_.push_back(std::move(e));
    dropped_ = 0;
  }
  kept_ = 0;
  return std::exchange(events_, {});
}

std::optional<json> parse_object(std::string_view raw) {
  // Depth 32 is far beyond any CLI's event shape; deeper values are discarded by the callback.
  auto shallow = [](int depth, json::parse_event_t, json&) { return depth <= 32; };
  json j = json::parse(raw.begin(), raw.end(), shallow, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  int64_t v = it->get<int64_t>();
  return v > 0 ? v : 0;
}

double amount(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  double v = it->get<double>();
  return std::isfinite(v) && v > 0 ? v : 0;
}

namespace {
const json& empty_object() {
  static const json e = json::object();
  return e;
}
const json& empty_array() {
  static const json e = json::array();
  return e;
}
}  // namespace

const json& obj(const json& j, const char* key) {
  if (!j.is_object()) return empty_object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty_object();
}

const json& arr(const json& j, const char* key) {
  if (!j.is_object()) return empty_array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty_array();
}

std::string compact(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "";
  return json_text(j);
}

std::string truncate_text(std::string s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  s += "…";
  return s;
}

void CallNames::put(const std::string& id, const std::string& name) {
  if (id.empty() || names_.size() >= 4096) return;
  names_[id] = name;
}

std::string CallNames::get(const std::string& id) const {
  auto it = names_.find(id);
  return it == names_.end() ? std::string() : it->second;
}

void Unparsed::count(std::string_view raw) {
  if (raw.find_first_not_of(" \t\r") != std::string_view::npos) ++n_;
}

void Unparsed::report(Sink& out) const {
  if (n_ > 0) out.add(Kind::error, fmt::format("{} line(s) of output were not JSON events", n_));
}

namespace {

// `command` and unknown providers: every non-blank line is a message.
class TextParser final : public LineParser {
 public:
  void line(std::string_view raw, Sink& out) override {
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) return;
    out.add(Kind::message, std::string(raw));
  }
};

std::unique_ptr<LineParser> make_parser(std::string_view provider) {
  if (provider == "claude" || provider == "cursor") return make_stream_json_parser();
  if (provider == "codex") return make_codex_parser();
  if (provider == "gemini") return make_gemini_parser();
  if (provider == "opencode") return make_opencode_parser();
  return std::make_unique<TextParser>();
}

}  // namespace

}  // namespace events

struct EventParser::Impl {
  std::unique_ptr<events::LineParser> parser;
  events::Sink sink;
  std::string line;
  bool skipping = false;  // inside a line longer than kEventLineMax

  void end_line() {
    if (skipping) {
      sink.add(TranscriptEvent::Kind::error,
               fmt::format("an output line longer than {} bytes was skipped", kEventLineMax));
    } else {
      std::string_view v(line);
      if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
      parser->line(v, sink);
    }
    line.clear();
    skipping = false;
  }

  void append(std::string_view part) {
    if (skipping) return;
    if (line.size() + part.size() > kEventLineMax) {
      skipping = true;
      line.clear();
      line.shrink_to_fit();
      return;
    }
    line.append(part);
  }
};

EventParser::EventParser(std::string_view provider) : impl_(std::make_unique<Impl>()) {
  impl_->parser = events::make_parser(provider);
}
EventParser::~EventParser() = default;
EventParser::EventParser(EventParser&&) noexcept = default;
EventParser& EventParser::operator=(EventParser&&) noexcept = default;

void EventParser::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      impl_->append(bytes);
      return;
    }
    impl_->append(bytes.substr(0, nl));
    impl_->end_line();
    bytes.remove_prefix(nl + 1);
  }
}

std::vector<TranscriptEvent> EventParser::take() {
  return impl_->sink.take_so_far();
}

std::vector<TranscriptEvent> EventParser::finish() {
  if (!impl_->line.empty() || impl_->skipping) impl_->end_line();
  impl_->parser->finish(impl_->sink);
  return impl_->sink.take();
}

std::vector<TranscriptEvent> parse_events(std::string_view provider, std::string_view output) {
  EventParser p(provider);
  p.feed(output);
  return p.finish();
}

Result<std::vector<TranscriptEvent>> parse_events_file(std::string_view provider,
                                                       const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  EventParser p(provider);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return fail("read {}: {}", path, errno_text(e));
    }
    if (n == 0) break;
    p.feed(std::string_view(buf, static_cast<size_t>(n)));
  }
  ::close(fd);
  return p.finish();
}

}  // namespace aw
