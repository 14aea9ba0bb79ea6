// Internal to the sanitizer: text whose every byte carries what it is, so that each markdown pass
// rewrites prose only and leaves code (and what an earlier pass already neutralized) alone.
//   Marked m = mark_structure(text);  // code bytes found by sanitize_structure.cc
//   m = filter_urls(m, ...); m = reduce_html(m); ...
// Each pass copies bytes with their kind and gives inserted bytes a kind of its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check/sanitize.h"

namespace aw::sanitize_detail {

enum Kind : uint8_t {
  kProse = 0,    // ordinary text: every pass may rewrite it
  kCode = 1,     // markdown code GitHub surely renders as code: left exactly as written
  kLink = 2,     // a kept URL: entities still escaped, no mention or reference inside
  kNeutral = 3,  // already made inert (inside <code>…</code>, "(link removed)")
};

struct Marked {
  std::string s;
  std::vector<uint8_t> k;  // one per byte of s

  void put(std::string_view t, uint8_t kind) {
    s.append(t);
    k.insert(k.end(), t.size(), kind);
  }
  void put(char c, uint8_t kind) {
    s += c;
    k.push_back(kind);
  }
  void copy(const Marked& from, size_t b, size_t e) {
    s.append(from.s, b, e - b);
    k.insert(k.end(), from.k.begin() + long(b), from.k.begin() + long(e));
  }
  size_t size() const { return s.size(); }
};

inline bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
inline bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline char lower_c(char c) {
  return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}
inline std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = lower_c(c);
  return o;
}
inline bool is_ascii_punct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

// Per byte: true where a markdown backslash escape begins (`\` before ASCII punctuation, not
// itself escaped). Code bytes never start escapes.
std::vector<bool> escape_starts(const Marked& m);

// Append `inert` (a wrapper or an entity) to out in place of prose that began with `first`:
// a literal backslash just before it would escape the `<` or `&` it starts with, so one that
// escaped punctuation is dropped and one that was literal is doubled.
void put_inert(Marked& out, std::string_view inert, char first, uint8_t kind);

// The passes, in the order sanitize_text runs them.
Marked mark_structure(std::string_view s, bool one_line);                           // structure.cc
Marked filter_urls(const Marked& in, const SanitizeOptions& o, SanitizeStats& st);  // links.cc
Marked reduce_html(const Marked& in);                                               // inline.cc
Marked strip_hidden_link_text(const Marked& in);                                    // links.cc
// ticks: wrap in backticks where they can only pair with each other (titles), else <code>.
Marked neutralize_references(const Marked& in, const SanitizeOptions& o, SanitizeStats& st,
                             bool ticks);
Marked neutralize_templates(const Marked& in);  // inline.cc

// Characters a URL ends at (also used for the reference after a closing keyword).
bool url_char_stop(char c);

}  // namespace aw::sanitize_detail
