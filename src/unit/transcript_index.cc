#include "unit/transcript_index.h"

#include <fmt/format.h>

#include <charconv>

namespace aw {

namespace {

// A whole number at s[at...] followed by `end`; advances at past both.
template <class T>
bool number(std::string_view s, size_t& at, T& out, char end) {
  auto [p, ec] = std::from_chars(s.data() + at, s.data() + s.size(), out);
  if (ec != std::errc() || p == s.data() + at || p == s.data() + s.size() || *p != end)
    return false;
  at = static_cast<size_t>(p - s.data()) + 1;
  return true;
}

}  // namespace

std::string format_mark(const TranscriptMark& m) {
  if (m.kind == TranscriptMark::Kind::time)
    return fmt::format("T {} {} {}\n", m.offset, m.line, m.ms);
  std::string name = m.phase;
  for (char& c : name)
    if (c == '\n' || c == '\r') c = ' ';
  return fmt::format("P {} {} {} {}\n", m.offset, m.line, m.ms, name);
}

std::vector<TranscriptMark> parse_marks(std::string_view text) {
  std::vector<TranscriptMark> out;
  for (size_t p = 0; p < text.size();) {
    size_t nl = text.find('\n', p);
    if (nl == std::string_view::npos) break;  // the last line, still being written
    std::string_view line = text.substr(p, nl - p);
    p = nl + 1;
    if (line.size() < 2 || (line[0] != 'P' && line[0] != 'T') || line[1] != ' ') break;
    TranscriptMark m;
    m.kind = line[0] == 'P' ? TranscriptMark::Kind::phase : TranscriptMark::Kind::time;
    // The last number ends the line for a time mark, and is followed by the name for a phase.
    std::string rest(line.substr(2));
    rest += m.kind == TranscriptMark::Kind::time ? " " : "";
    size_t at = 0;
    if (!number(rest, at, m.offset, ' ') || !number(rest, at, m.line, ' ')) break;
    if (m.kind == TranscriptMark::Kind::time) {
      if (!number(rest, at, m.ms, ' ') || at != rest.size()) break;
    } else {
      if (!number(rest, at, m.ms, ' ') || at >= rest.size()) break;
      m.phase = rest.substr(at);
    }
    if (!out.empty() && (m.offset < out.back().offset || m.line < out.back().line)) break;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace aw
