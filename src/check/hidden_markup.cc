// Why each rule: GitHub renders CommonMark (cmark-gfm). An HTML comment is not shown; an image
// shows its picture, not its alt text; a title shows only on hover; a reference definition never
// shows, nor does the label of a full reference to one. Whoever admitted the issue read the page,
// so whatever it hides is an instruction nobody reviewed. Code is left alone (on the page it shows
// as written), but only code GitHub surely renders as code (mark_structure, which errs towards
// prose): at worst a comment in code GitHub would show is removed, and the task says so.
#include "check/hidden_markup.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "check/sanitize_marked.h"

namespace aw {
namespace sd = sanitize_detail;
namespace {

using sd::kCode;
using sd::kProse;
using sd::Marked;
constexpr size_t npos = std::string::npos;

Marked without(const Marked& in, const std::vector<char>& drop) {
  Marked out;
  out.s.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.put(in.s[i], in.k[i]);
  return out;
}

size_t line_start(const std::string& s, size_t i) {
  size_t nl = i == 0 ? npos : s.rfind('\n', i - 1);
  return nl == npos ? 0 : nl + 1;
}

size_t line_end(const std::string& s, size_t i) {
  return std::min(s.find('\n', i), s.size());
}

bool blank(const std::string& s, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i)
    if (s[i] != ' ' && s[i] != '\t') return false;
  return true;
}

// Whether the newline at i ends a paragraph: the line after it is blank (or there is none).
bool ends_paragraph(const std::string& s, size_t i) {
  return i + 1 >= s.size() || blank(s, i + 1, line_end(s, i + 1));
}

// Spaces and tabs from i, and with `newline` at most one line break and the next line's.
size_t skip_space(const std::string& s, size_t i, bool newline) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (newline && i < s.size() && s[i] == '\n' && !ends_paragraph(s, i)) {
    ++i;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  return i;
}

// Whether only white space and container markers (`>`, list markers) precede i on its line:
// there `<!--` starts an HTML block, which runs to the line holding `-->` or to the end.
bool starts_block(const std::string& s, size_t i) {
  constexpr std::string_view kMarkers = " \t>-*+.)0123456789";
  for (size_t j = line_start(s, i); j < i; ++j)
    if (kMarkers.find(s[j]) == std::string_view::npos) return false;
  return true;
}

// A label as CommonMark matches it: case folded (ASCII here), white space runs as one, trimmed.
std::string label_key(std::string_view l) {
  std::string out;
  for (char c : l) {
    bool space = c == ' ' || c == '\t' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : sd::lower_c(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A link destination at i: its end, or npos. `<...>` on one line, or a run without white space or
// control characters whose parentheses balance (empty only when `empty_ok`).
size_t dest_end(const Marked& m, const std::vector<bool>& esc, size_t i, bool empty_ok) {
  const std::string& s = m.s;
  if (i < s.size() && s[i] == '<') {
    for (size_t j = i + 1; j < s.size(); ++j) {
      if (esc[j]) {
        ++j;
        continue;
      }
      if (s[j] == '\n' || s[j] == '<') return npos;
      if (s[j] == '>') return j + 1;
    }
    return npos;
  }
  int depth = 0;
  size_t j = i;
  for (; j < s.size(); ++j) {
    if (esc[j]) {
      ++j;
      continue;
    }
    auto c = static_cast<unsigned char>(s[j]);
    if (c <= ' ') break;
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) break;
  }
  if (depth > 0 || (j == i && !empty_ok)) return npos;
  return std::min(j, s.size());
}

// A title opening at i (`"`, `'` or `(`): the end past its closer, or npos when none comes
// before the paragraph ends.
size_t title_end(const Marked& m, const std::vector<bool>& esc, size_t i) {
  const std::string& s = m.s;
  char close = s[i] == '(' ? ')' : s[i];
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (esc[j]) {
      ++j;
      continue;
    }
    if (s[j] == close) return j + 1;
    if ((s[j] == '\n' && ends_paragraph(s, j)) || (close == ')' && s[j] == '(')) return npos;
  }
  return npos;
}

bool title_opener(char c) {
  return c == '"' || c == '\'' || c == '(';
}

Marked strip_comments(const Marked& in, HiddenMarkup& h) {
  const std::string& s = in.s;
  std::vector<bool> esc = sd::escape_starts(in);
  std::vector<char> drop(in.size(), 0);
  // Where each `-->` is and where each paragraph ends, found once: every `<!--` looks them up.
  std::vector<size_t> closers, breaks;
  for (size_t p = s.find("-->"); p != npos; p = s.find("-->", p + 1)) closers.push_back(p);
  for (size_t p = s.find('\n'); p != npos; p = s.find('\n', p + 1))
    if (ends_paragraph(s, p)) breaks.push_back(p);
  for (size_t i = 0; i < in.size(); ++i) {
    if (in.k[i] == kCode || s.compare(i, 4, "<!--") != 0 || (i > 0 && esc[i - 1])) continue;
    auto c = std::lower_bound(closers.begin(), closers.end(), i + 2);
    size_t close = c == closers.end() ? npos : *c;
    bool block = starts_block(s, i);
    if (!block && close != npos) {  // inline: closed within its paragraph, else shown as text
      auto b = std::lower_bound(breaks.begin(), breaks.end(), i);
      if (b != breaks.end() && *b < close) close = npos;
    }
    if (close == npos && !block) continue;
    size_t end = close == npos ? s.size() : close + 3;
    std::fill(drop.begin() + long(i), drop.begin() + long(end), 1);
    ++h.comments;
    i = end - 1;
  }
  return without(in, drop);
}

// A reference definition whose `[` is at i: the end of what it takes (past its last line's
// newline), its label set; npos when there is none.
size_t definition_end(const Marked& m, const std::vector<bool>& esc, size_t i, std::string& label) {
  const std::string& s = m.s;
  size_t j = i + 1;
  for (; j < s.size() && s[j] != ']'; ++j) {
    if (esc[j]) {
      ++j;
      continue;
    }
    if (s[j] == '[' || j - i > 1000 || (s[j] == '\n' && ends_paragraph(s, j))) return npos;
  }
  if (j + 1 >= s.size() || s[j + 1] != ':') return npos;
  label = s.substr(i + 1, j - i - 1);
  if (label_key(label).empty()) return npos;
  auto past_line = [&](size_t at) {
    size_t e = line_end(s, at);
    return e < s.size() ? e + 1 : e;
  };
  size_t p = skip_space(s, j + 2, true);
  size_t de = dest_end(m, esc, p, false);
  if (de == npos) return npos;
  size_t q = skip_space(s, de, false);
  if (q == line_end(s, de)) {  // the destination ends its line: a title may be on the next one
    size_t next = past_line(de);
    size_t r = skip_space(s, next, false);
    if (next < s.size() && r < s.size() && title_opener(s[r])) {
      size_t te = title_end(m, esc, r);
      if (te != npos && skip_space(s, te, false) == line_end(s, te)) return past_line(te);
    }
    return next;
  }
  if (q == de || !title_opener(s[q])) return npos;
  size_t te = title_end(m, esc, q);
  if (te == npos || skip_space(s, te, false) != line_end(s, te)) return npos;
  return past_line(te);
}

Marked strip_definitions(const Marked& in, HiddenMarkup& h, std::set<std::string>& labels) {
  const std::string& s = in.s;
  std::vector<bool> esc = sd::escape_starts(in);
  std::vector<char> drop(in.size(), 0);
  for (size_t b = 0; b < s.size();) {
    size_t e = line_end(s, b), next = e < s.size() ? e + 1 : e;
    size_t i = b;
    constexpr std::string_view kMarkers = " \t>-*+.)0123456789";  // containers (quotes, lists)
    while (i < e && kMarkers.find(s[i]) != std::string_view::npos) ++i;
    std::string label;
    size_t end = npos;
    if (i < e && s[i] == '[' && in.k[i] == kProse && i + 1 < s.size() && s[i + 1] != '^')
      end = definition_end(in, esc, i, label);
    if (end != npos) {  // its last newline stays: the line after it stays a line of its own
      std::fill(drop.begin() + long(i), drop.begin() + long(end - (s[end - 1] == '\n')), 1);
      ++h.definitions;
      labels.insert(label_key(label));
      next = end;
    }
    b = next;
  }
  return without(in, drop);
}

// alt= and title= of an HTML tag (`<img alt="...">`, `<a title="...">`): never on the page.
Marked strip_tag_attributes(const Marked& in, HiddenMarkup& h) {
  const std::string& s = in.s;
  std::vector<bool> esc = sd::escape_starts(in);
  std::vector<char> drop(in.size(), 0);
  auto space = [&](size_t j) {
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || (s[j] == '\n' && !ends_paragraph(s, j))))
      ++j;
    return j;
  };
  for (size_t i = 0; i + 1 < in.size(); ++i) {
    if (in.k[i] != kProse || s[i] != '<' || !sd::is_alpha(s[i + 1]) || (i > 0 && esc[i - 1]))
      continue;
    size_t j = i + 1;
    while (j < s.size() && (sd::is_alnum(s[j]) || s[j] == '-')) ++j;
    struct Attribute {
      size_t b, e;  // from the white space before it to the end of its value
      std::string name;
      bool valued;
    };
    std::vector<Attribute> attrs;
    size_t end = npos;
    for (;;) {
      size_t ws = j;
      j = space(j);
      if (j < s.size() && s[j] == '>') {
        end = j + 1;
        break;
      }
      if (j + 1 < s.size() && s[j] == '/' && s[j + 1] == '>') {
        end = j + 2;
        break;
      }
      if (j == ws || j >= s.size() || !(sd::is_alpha(s[j]) || s[j] == '_' || s[j] == ':')) break;
      size_t nb = j;
      while (j < s.size() &&
             (sd::is_alnum(s[j]) || std::string_view("_.:-").find(s[j]) != std::string_view::npos))
        ++j;
      Attribute a{ws, j, sd::lower(std::string_view(s).substr(nb, j - nb)), false};
      size_t eq = space(j);
      if (eq < s.size() && s[eq] == '=') {
        j = space(eq + 1);
        size_t v = j;
        if (j < s.size() && (s[j] == '"' || s[j] == '\'')) {
          size_t q = s.find(s[j], j + 1);
          if (q == npos) break;
          j = q + 1;
          a.valued = q > v + 1;
        } else {
          while (j < s.size() &&
                 std::string_view(" \t\n\"'=<>`").find(s[j]) == std::string_view::npos)
            ++j;
          if (j == v) break;
          a.valued = true;
        }
        a.e = j;
      }
      attrs.push_back(a);
    }
    if (end == npos) continue;  // not a tag: it shows as text
    for (const Attribute& a : attrs) {
      if (a.name != "alt" && a.name != "title") continue;
      std::fill(drop.begin() + long(a.b), drop.begin() + long(a.e), 1);
      if (a.valued) ++(a.name == "alt" ? h.alt_texts : h.titles);
    }
    i = end - 1;
  }
  return without(in, drop);
}

// Links and images: titles of inline ones, images' alt text, labels of full references to a
// definition (their text shows, the label never does).
Marked strip_link_text(const Marked& in, HiddenMarkup& h, const std::set<std::string>& labels) {
  const std::string& s = in.s;
  std::vector<bool> esc = sd::escape_starts(in);
  std::vector<size_t> close(in.size(), npos), open;  // brackets paired within a paragraph
  for (size_t i = 0; i < in.size(); ++i) {
    if (s[i] == '\n' && ends_paragraph(s, i)) open.clear();
    if (in.k[i] == kCode) continue;
    if (esc[i]) {
      ++i;
      continue;
    }
    if (s[i] == '[') open.push_back(i);
    if (s[i] == ']' && !open.empty()) {
      close[open.back()] = i;
      open.pop_back();
    }
  }
  std::vector<char> drop(in.size(), 0);
  for (size_t o = 0; o < in.size(); ++o) {
    size_t c = close[o];
    if (c == npos) continue;
    bool image = o > 0 && s[o - 1] == '!' && in.k[o - 1] == kProse && !(o > 1 && esc[o - 2]);
    // A label is at most 999 characters: a longer text matches no definition (and is not copied,
    // so that nested brackets stay linear).
    auto key = [&](size_t b, size_t e) {
      return e - b > 1000 ? std::string("\x7f") : label_key(std::string_view(s).substr(b, e - b));
    };
    auto drop_alt = [&] {
      if (s.find_first_not_of(" \t\n", o + 1) >= c) return;  // nothing hidden
      std::fill(drop.begin() + long(o + 1), drop.begin() + long(c), 1);
      ++h.alt_texts;
    };
    size_t a = c + 1;
    if (a < s.size() && s[a] == '(' && in.k[a] == kProse) {
      size_t de = dest_end(in, esc, skip_space(s, a + 1, true), true);
      if (de == npos) continue;
      size_t q = skip_space(s, de, true), te = npos;
      if (q > de && q < s.size() && title_opener(s[q])) {
        te = title_end(in, esc, q);
        if (te == npos) continue;
        q = skip_space(s, te, true);
      }
      if (q >= s.size() || s[q] != ')') continue;
      if (te != npos) {
        std::fill(drop.begin() + long(de), drop.begin() + long(te), 1);
        ++h.titles;
      }
      if (image) drop_alt();
    } else if (a < s.size() && s[a] == '[' && close[a] != npos) {
      bool collapsed = key(a + 1, close[a]).empty();  // [text][]: the text is the label
      if (!labels.count(collapsed ? key(o + 1, c) : key(a + 1, close[a]))) continue;
      if (!collapsed) {
        std::fill(drop.begin() + long(a + 1), drop.begin() + long(close[a]), 1);
        ++h.labels;
      }
      if (image) drop_alt();
    } else if (image && labels.count(key(o + 1, c))) {  // ![label], shortcut
      drop_alt();
    }
  }
  return without(in, drop);
}

}  // namespace

std::string strip_hidden_markup(std::string_view text, HiddenMarkup& removed) {
  // Comments first: whatever they hold (brackets, tags, definitions) goes with them.
  Marked m = strip_comments(sd::mark_structure(text, false), removed);
  std::set<std::string> labels;
  m = strip_definitions(m, removed, labels);
  m = strip_tag_attributes(m, removed);
  m = strip_link_text(m, removed, labels);
  return std::move(m.s);
}

std::string describe(const HiddenMarkup& h) {
  std::string out;
  auto add = [&](int n, std::string_view one, std::string_view many) {
    if (n == 0) return;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, n == 1 ? one : many);
  };
  add(h.comments, "hidden HTML comment", "hidden HTML comments");
  add(h.alt_texts, "image alt text", "image alt texts");
  add(h.titles, "link title", "link titles");
  add(h.definitions, "reference definition", "reference definitions");
  add(h.labels, "reference label", "reference labels");
  return out;
}

}  // namespace aw
