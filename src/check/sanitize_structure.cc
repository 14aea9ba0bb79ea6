// Which bytes GitHub surely renders as code. This is the one place where being wrong is
// dangerous: text called code here is left as written, so a mention in it must really be inside
// code on GitHub. Every rule below therefore errs towards "prose" (wrapped, escaped: at worst a
// cosmetic change inside real code) and never towards "code":
//  - Fenced blocks only when the opening fence has no container marker (`>`, `- `) and at most
//    three spaces of indent, and every line until the closing fence is blank or indented at
//    least as much; anything else that could end the fence earlier on GitHub (a list item
//    closing) makes the rest of the text prose.
//  - No fences or code spans inside a region that may be an HTML block (a line starting with
//    a kept block tag, up to the next blank line): GitHub renders its text raw.
//  - Code spans paired as CommonMark does (a run of n backticks closes at the next run of
//    exactly n, backslash escapes outside code) within a run of non-blank lines, and trusted
//    only while every pair so far sits on one line, no link destination or title may take a
//    backtick first (`[a](x`y)`), no reference definition starts, no run of backticks went
//    unclosed, and, when the text has a table, the span holds no `|` that would split a cell.
#include <string>
#include <unordered_map>

#include "check/sanitize_marked.h"

namespace aw::sanitize_detail {

size_t kept_tag_end(std::string_view s, size_t i, std::string* normalized);  // inline.cc

namespace {

constexpr std::string_view kBlockTags[] = {"details", "summary", "p",  "ul",
                                           "ol",      "li",      "hr", "blockquote"};

struct Line {
  size_t b, e;  // [b, e) without the newline
};

std::vector<Line> split_lines(std::string_view s) {
  std::vector<Line> out;
  size_t b = 0;
  while (true) {
    size_t nl = s.find('\n', b);
    if (nl == std::string_view::npos) {
      out.push_back({b, s.size()});
      return out;
    }
    out.push_back({b, nl});
    b = nl + 1;
  }
}

// Columns of leading white space (tabs to the next multiple of 4) and where the text starts.
size_t indent_of(std::string_view l, size_t* first = nullptr) {
  size_t col = 0, i = 0;
  for (; i < l.size() && (l[i] == ' ' || l[i] == '\t'); ++i)
    col = l[i] == '\t' ? (col / 4 + 1) * 4 : col + 1;
  if (first) *first = i;
  return col;
}

bool blank(std::string_view l) {
  return l.find_first_not_of(" \t") == std::string_view::npos;
}

struct Fence {
  char c = 0;
  size_t n = 0, indent = 0;
};

// A fence line at most three columns in: ``` or ~~~ (3 or more); a backtick fence's info
// string has no backtick.
bool fence_line(std::string_view l, Fence& f) {
  size_t i;
  size_t ind = indent_of(l, &i);
  if (ind > 3 || i >= l.size() || (l[i] != '`' && l[i] != '~')) return false;
  size_t j = i;
  while (j < l.size() && l[j] == l[i]) ++j;
  if (j - i < 3) return false;
  if (l[i] == '`' && l.find('`', j) != std::string_view::npos) return false;
  f = {l[i], j - i, ind};
  return true;
}

// A closing fence for `open` but for its indent (GitHub may see one where it is more than 3).
bool closer_any_indent(std::string_view l, const Fence& open) {
  size_t i;
  indent_of(l, &i);
  size_t j = i;
  while (j < l.size() && l[j] == open.c) ++j;
  return j - i >= open.n && blank(l.substr(j));
}

bool closes(std::string_view l, const Fence& open) {
  Fence f;
  if (!fence_line(l, f) || f.c != open.c || f.n < open.n) return false;
  size_t i;
  indent_of(l, &i);
  return blank(l.substr(i + f.n));
}

// Whether a line may be (a kept tag starting) an HTML block once container markers are
// ignored; pre blocks run past blank lines to their end tag.
enum class Html { none, block, pre };
Html html_start(std::string_view l) {
  size_t i = 0;
  while (i < l.size()) {  // white space, `>`, list markers, in any order
    char c = l[i];
    if (c == ' ' || c == '\t' || c == '>') {
      ++i;
    } else if ((c == '-' || c == '*' || c == '+') && (i + 1 == l.size() || l[i + 1] == ' ')) {
      ++i;
    } else if (c >= '0' && c <= '9') {
      size_t j = i;
      while (j < l.size() && l[j] >= '0' && l[j] <= '9') ++j;
      if (j < l.size() && (l[j] == '.' || l[j] == ')')) {
        i = j + 1;
      } else {
        break;
      }
    } else {
      break;
    }
  }
  if (i >= l.size() || l[i] != '<') return Html::none;
  std::string tag;
  size_t end = kept_tag_end(l, i, &tag);
  if (!end) return Html::none;
  std::string name = tag.substr(tag[1] == '/' ? 2 : 1);
  name.pop_back();
  if (name == "pre") return Html::pre;
  for (auto t : kBlockTags)
    if (name == t) return Html::block;
  return blank(l.substr(end)) ? Html::block : Html::none;  // a tag alone on its line
}

bool table_delimiter(std::string_view l) {
  return l.find('|') != std::string_view::npos && l.find('-') != std::string_view::npos &&
         l.find_first_not_of(" \t|:-") == std::string_view::npos;
}

bool refdef_like(std::string_view l) {
  size_t i = 0;
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '>')) ++i;
  return i < l.size() && l[i] == '[' && l.find("]:", i) != std::string_view::npos;
}

// Whether the destination or title that may follow `](` at p takes a backtick before GitHub's
// code span parsing reaches it. Permissive: anything that could be a link tail counts.
bool tail_takes_backtick(std::string_view s, size_t p, size_t end, size_t& budget) {
  size_t j = p;
  auto step = [&] { return budget > 0 ? (--budget, true) : false; };
  auto skip_ws = [&] {
    bool nl = false;
    while (j < end && (s[j] == ' ' || s[j] == '\t' || (s[j] == '\n' && !nl))) nl |= s[j++] == '\n';
  };
  skip_ws();
  if (j < end && s[j] == '<') {
    for (; j < end && s[j] != '>' && s[j] != '\n'; ++j) {
      if (!step() || s[j] == '`') return true;
    }
  } else {
    int depth = 0;
    for (; j < end && s[j] != ' ' && s[j] != '\t' && s[j] != '\n'; ++j) {
      if (!step() || s[j] == '`') return true;
      if (s[j] == '\\' && j + 1 < end && s[j + 1] != '\n')
        ++j;
      else if (s[j] == '(')
        ++depth;
      else if (s[j] == ')' && depth-- == 0)
        return false;
    }
  }
  skip_ws();
  if (j >= end || (s[j] != '"' && s[j] != '\'' && s[j] != '(')) return false;
  char close = s[j] == '(' ? ')' : s[j];
  for (++j; j < end && s[j] != close; ++j) {
    if (!step() || s[j] == '`') return true;
    if (s[j] == '\\') ++j;
  }
  return false;
}

class Spans {
 public:
  Spans(std::string_view s, std::vector<uint8_t>& k, bool table) : s_(s), k_(k), table_(table) {}

  // Marks the code spans to trust in the non-blank lines [b, e).
  void chunk(size_t b, size_t e) {
    std::unordered_map<size_t, std::vector<size_t>> runs;  // length -> raw run starts
    for (size_t i = b; i < e;) {
      if (s_[i] != '`') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < e && s_[j] == '`') ++j;
      runs[j - i].push_back(i);
      i = j;
    }
    if (runs.empty()) return;
    std::unordered_map<size_t, size_t> cursor;
    size_t budget = 1u << 20;
    size_t stop_at = e;  // a reference definition's label and title are not parsed as inlines
    for (size_t ls = b; ls < e; ls = s_.find('\n', ls) + 1) {
      size_t nl = s_.find('\n', ls);
      if (refdef_like(s_.substr(ls, (nl == std::string_view::npos || nl > e ? e : nl) - ls))) {
        stop_at = ls;
        break;
      }
      if (nl == std::string_view::npos || nl >= e) break;
    }
    for (size_t i = b; i < e;) {
      if (i >= stop_at) return;
      char c = s_[i];
      if (c == '\\' && i + 1 < e && is_ascii_punct(s_[i + 1])) {
        i += 2;
        continue;
      }
      if (c == ']' && i + 1 < e && s_[i + 1] == '(') {
        if (tail_takes_backtick(s_, i + 2, e, budget)) return;
        ++i;
        continue;
      }
      if (c != '`') {
        ++i;
        continue;
      }
      size_t n = 0;
      while (i + n < e && s_[i + n] == '`') ++n;
      auto& list = runs[n];
      size_t& cur = cursor[n];
      while (cur < list.size() && list[cur] < i + n) ++cur;
      // No closer: literal backticks, and cmark-gfm, having looked for one to the end, may take
      // later openers for literal too (it remembers only the last run of each length it saw).
      if (cur == list.size()) return;
      size_t close = list[cur];
      if (!trustworthy(i, n, close)) return;
      for (size_t x = i; x < close + n; ++x) k_[x] = kCode;
      i = close + n;
    }
  }

 private:
  bool trustworthy(size_t open, size_t n, size_t close) const {
    std::string_view inner = s_.substr(open + n, close - open - n);
    if (inner.find('\n') != std::string_view::npos) return false;
    if (table_)
      for (size_t x = 0; x < inner.size(); ++x)
        if (inner[x] == '|' && (x == 0 || inner[x - 1] != '\\')) return false;
    return true;
  }
  std::string_view s_;
  std::vector<uint8_t>& k_;
  bool table_;
};

}  // namespace

Marked mark_structure(std::string_view s, bool one_line) {
  Marked m;
  m.s = std::string(s);
  m.k.assign(s.size(), kProse);
  auto lines = split_lines(s);
  bool table = false;
  for (const auto& l : lines) table = table || table_delimiter(s.substr(l.b, l.e - l.b));
  Spans spans(s, m.k, table);
  enum { normal, fence, html, pre } st = normal;
  Fence f;
  size_t fence_from = 0, chunk_from = std::string::npos;
  auto end_chunk = [&](size_t at) {
    if (chunk_from != std::string::npos) spans.chunk(chunk_from, at);
    chunk_from = std::string::npos;
  };
  auto code = [&](size_t b, size_t e) {
    for (size_t x = b; x < e && x < s.size(); ++x) m.k[x] = kCode;
  };
  if (one_line) {  // inline markdown only: code spans, nothing of blocks
    spans.chunk(0, s.size());
    return m;
  }
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = s.substr(lines[li].b, lines[li].e - lines[li].b);
    size_t lb = lines[li].b, le = lines[li].e;
    if (st == fence) {
      if (blank(l)) {
        code(lb, le + 1);
        continue;
      }
      size_t ind = indent_of(l);
      bool closer = closes(l, f);
      bool ambiguous = ind < f.indent || (f.indent > 0 && ind > 3 && closer_any_indent(l, f));
      if (ambiguous) {  // GitHub may have ended the fence here: trust nothing from its start
        for (size_t x = fence_from; x < s.size(); ++x) m.k[x] = kProse;
        return m;
      }
      code(lb, closer ? le : le + 1);
      if (closer) st = normal;
      continue;
    }
    if (st == html || st == pre) {
      if (blank(l) && st == html) {
        st = normal;
      } else if (st == pre && lower(l).find("</pre>") != std::string::npos) {
        st = html;
      }
      continue;
    }
    if (blank(l)) {
      end_chunk(lb);
      continue;
    }
    if (fence_line(l, f) && l.find_first_not_of(" ") == l.find_first_not_of(" \t")) {
      end_chunk(lb);
      st = fence;
      fence_from = lb;
      code(lb, le + 1);
      continue;
    }
    Html h = html_start(l);
    if (h != Html::none) {
      end_chunk(lb);
      st = h == Html::pre ? pre : html;
      if (st == pre && lower(l).find("</pre>") != std::string::npos) st = html;
      continue;
    }
    if (chunk_from == std::string::npos) chunk_from = lb;
  }
  if (st == normal) end_chunk(s.size());
  return m;
}

}  // namespace aw::sanitize_detail
