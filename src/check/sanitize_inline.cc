// Inline passes over prose: HTML, references that notify or close (mentions, closing keywords,
// other repositories), template delimiters.
#include <algorithm>
#include <string>

#include "check/sanitize_fold.h"
#include "check/sanitize_marked.h"

namespace aw::sanitize_detail {

constexpr std::string_view kSafeTags[] = {
    "b",  "i",       "em",      "strong",     "code", "pre", "br",  "p",   "ul", "ol",
    "li", "details", "summary", "blockquote", "hr",   "sub", "sup", "kbd", "del"};

// If s[i..] is a safe tag kept by the sanitizer (its attributes on the same line, without `<`
// or a backtick), the end of it and its normalized form ("<b>", "</b>"); else 0.
size_t kept_tag_end(std::string_view s, size_t i, std::string* normalized) {
  size_t j = i + 1;
  bool closing = j < s.size() && s[j] == '/';
  if (closing) ++j;
  size_t name_start = j;
  while (j < s.size() && is_alnum(s[j])) ++j;
  if (j == name_start || !is_alpha(s[name_start])) return 0;
  std::string name = lower(s.substr(name_start, j - name_start));
  bool safe = false;
  for (auto t : kSafeTags) safe = safe || name == t;
  if (!safe || j >= s.size()) return 0;
  size_t end = 0;
  if (s[j] == '>') {
    end = j + 1;
  } else if (!closing && s.substr(j, 2) == "/>") {
    end = j + 2;
  } else if (s[j] == ' ' || s[j] == '\t') {
    size_t gt = s.find_first_of("<>`\n", j);
    if (gt == std::string_view::npos || s[gt] != '>') return 0;
    if (closing && s.substr(j, gt - j).find_first_not_of(" \t") != std::string_view::npos) return 0;
    end = gt + 1;
  } else {
    return 0;
  }
  if (normalized) *normalized = (closing ? "</" : "<") + name + ">";
  return end;
}

namespace {

// Whether `<` at i may start a tag, comment, processing instruction or autolink: a letter, `/`,
// `!` or `?` after it, or an e-mail autolink's local part (almost any punctuation) up to `@`.
bool may_open_markup(std::string_view s, size_t i) {
  if (i + 1 >= s.size()) return false;
  char c = s[i + 1];
  if (is_alpha(c) || c == '/' || c == '!' || c == '?') return true;
  constexpr std::string_view kLocal = ".!#$%&'*+/=?^_`{|}~-";
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '@') return j > i + 1;
    if (!is_alnum(s[j]) && kLocal.find(s[j]) == std::string_view::npos) return false;
  }
  return false;
}

}  // namespace

Marked reduce_html(const Marked& in) {
  std::vector<bool> esc = escape_starts(in);
  Marked out;
  out.s.reserve(in.size());
  const std::string& s = in.s;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = s[i];
    if (in.k[i] == kCode || (c != '&' && c != '<')) {
      if (esc[i])
        out.copy(in, i, i + 2), ++i;
      else
        out.put(c, in.k[i]);
      continue;
    }
    if (c == '&') {
      size_t j = i + 1;
      while (j < in.size() && j - i < 32 && (is_alnum(s[j]) || s[j] == '#')) ++j;
      std::string_view name = std::string_view(s).substr(i + 1, j - i - 1);
      bool entity = j > i + 1 && j < in.size() && s[j] == ';';
      // Escapes of plain ASCII stay (what the sanitizer writes itself); any other reference
      // could spell a bidi or invisible character, an `@`, or a scheme.
      bool harmless = name == "lt" || name == "gt" || name == "amp" || name == "quot" ||
                      name == "#123" || name == "#125";
      out.put((entity && !harmless) ? "&amp;" : "&", in.k[i]);
      continue;
    }
    std::string tag;
    size_t end = kept_tag_end(s, i, &tag);
    bool in_line = end && std::all_of(in.k.begin() + long(i), in.k.begin() + long(end),
                                      [](uint8_t k) { return k == kProse; });
    if (end && in_line) {
      out.put(tag, kProse);
      i = end - 1;
    } else if (may_open_markup(s, i)) {
      out.put("&lt;", in.k[i]);
    } else {
      out.put('<', in.k[i]);
    }
  }
  return out;
}

namespace {

constexpr std::string_view kClosingWords[] = {"close",   "closes",   "closed",   "closing",
                                              "fix",     "fixes",    "fixed",    "fixing",
                                              "resolve", "resolves", "resolved", "resolving"};

bool name_char(char c) {
  return is_alnum(c) || c == '-' || c == '_';
}
// What ends an issue number: `#3x` and `#3_` are no reference, `#3-` and `#3.` are.
bool word_char(char c) {
  return is_alnum(c) || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

class References {
 public:
  References(const Marked& in, const SanitizeOptions& o, SanitizeStats& st, bool ticks)
      : in_(in), o_(o), st_(st), u_(fold_units(in.s)) {
    mark_code_elements();
    ticks_ok_ = ticks;
    for (size_t i = 0; i < in.size() && ticks_ok_; ++i)
      ticks_ok_ = in.s[i] != '`' || in.k[i] == kCode;
  }

  Marked run() {
    for (size_t x = 0; x < u_.size();) {
      size_t next = x + 1;
      if (u_[x].b < copied_) {  // the rest of a code point already wrapped
        x = next;
        continue;
      }
      if (kind(x) == kLink && (x == 0 || kind(x - 1) != kLink)) {
        size_t y = x;
        while (y < u_.size() && kind(y) == kLink) ++y;
        if (foreign_issue_url(x, y) || holds_reference(x, y)) wrap(x, y);
        next = y;
      } else if (kind(x) == kProse && word_start(x)) {
        size_t end = 0;
        if ((end = mention(x))) {
          ++st_.mentions;
          wrap(x, end);
          next = end;
        } else if ((end = foreign_ref(x))) {
          wrap(x, end);
          next = end;
        } else if (size_t ref = after_keyword(x, end)) {
          if (o_.commit)
            remove(ref, end);
          else
            wrap(ref, end);
          next = end;
        } else if (name_char(c(x))) {  // the rest of a word starts nothing
          // but GitHub reads words in ASCII: after a letter that only folds to one (`Āfixes`),
          // a new word starts
          while (name_char(c(next)) && (u_[next].b == u_[next - 1].b || !word_start(next))) ++next;
        }
      }
      x = next;
    }
    out_.copy(in_, copied_, in_.size());
    return std::move(out_);
  }

 private:
  uint8_t kind(size_t x) const { return k_[u_[x].b]; }
  char c(size_t x) const { return x < u_.size() && kind(x) == kProse ? u_[x].c : '\0'; }
  // The character as written where only ASCII counts: anything else is '\x7f'.
  char raw(size_t x) const {
    if (x >= u_.size() || kind(x) != kProse) return '\0';
    return u_[x].e - u_[x].b == 1 ? in_.s[u_[x].b] : '\x7f';
  }
  // The end of an issue number after `#` at hash, or 0. GitHub reads it in ASCII: `#1` ends at
  // anything but an ASCII letter, digit or `_`, however that folds (`#1Ā` is #1 there, though Ā
  // folds to `a`); the folded form (`＃１`) counts too, to err towards wrapping.
  size_t number_end(size_t hash) const {
    size_t best = 0;
    for (bool folded : {false, true}) {
      auto ch = [&](size_t x) { return folded ? c(x) : raw(x); };
      size_t d = hash + 1;
      while (ch(d) >= '0' && ch(d) <= '9') ++d;
      if (d > hash + 1 && !word_char(ch(d))) best = std::max(best, d);
    }
    return best;
  }

  // A <code>…</code> element on one line (ours or the agent's) is inert for references.
  void mark_code_elements() {
    k_ = in_.k;
    std::vector<bool> esc = escape_starts(in_);
    const std::string& s = in_.s;
    for (size_t p = s.find("<code>"); p != std::string::npos; p = s.find("<code>", p + 1)) {
      if (k_[p] != kProse || (p > 0 && esc[p - 1])) continue;
      size_t q = s.find_first_of("<\n", p + 6);
      if (q == std::string::npos || s.compare(q, 7, "</code>") != 0) continue;
      for (size_t x = p; x < q + 7; ++x)
        if (k_[x] != kCode) k_[x] = kNeutral;
      p = q;
    }
  }

  // GitHub links `@name` after anything but an ASCII letter or digit (so `_@x`, `é@x` count,
  // `bob@example.com` does not).
  // Right after a wrapper, a text node starts on GitHub: `@a@b` is two mentions once the
  // first is wrapped.
  bool word_start(size_t x) const {
    size_t b = u_[x].b;
    return b == 0 || (b == copied_ && wrapped_) || !is_alnum(in_.s[b - 1]);
  }

  size_t mention(size_t x) const {
    if (c(x) != '@') return 0;
    // `@` before a kept URL: where the autolinker does not run (inside an unclosed `[`) GitHub
    // reads `@https` as a mention; the URL goes into the wrapper with it
    if (x + 1 < u_.size() && kind(x + 1) == kLink && is_alnum(u_[x + 1].c)) {
      size_t e = x + 1;
      while (e < u_.size() && kind(e) == kLink) ++e;
      return e;
    }
    if (!is_alnum(c(x + 1))) return 0;
    size_t e = x + 1;
    while (name_char(c(e))) ++e;
    if (c(e) == '/' && is_alnum(c(e + 1))) {  // @org/team
      e += 1;
      while (name_char(c(e)) || c(e) == '.') ++e;
      while (c(e - 1) == '.') --e;
    }
    return e;
  }

  // owner/repo#N (or owner/repo@sha is left: commits have no timeline to spam).
  size_t foreign_ref(size_t x) const {
    size_t e = x;
    while (name_char(c(e)) || c(e) == '.') ++e;
    if (e == x || c(e) != '/') return 0;
    size_t slash = e++;
    while (name_char(c(e)) || c(e) == '.') ++e;
    if (e == slash + 1 || c(e) != '#') return 0;
    size_t d = number_end(e);
    return d == 0 || same_repo(x, e) ? 0 : d;
  }

  bool same_repo(size_t x, size_t e) const {
    std::string r;
    for (size_t y = x; y < e; ++y) r += u_[y].c;
    return !o_.repo.empty() && r == lower(o_.repo);
  }

  // https://host/owner/repo/(issues|pull|discussions)/N for another repository.
  bool foreign_issue_url(size_t x, size_t y) const {
    std::string url;
    for (size_t z = x; z < y; ++z) url += u_[z].c;
    size_t p = url.find("://");
    if (p == std::string::npos) return false;
    p = url.find('/', p + 3);
    if (p == std::string::npos) return false;
    size_t a = url.find('/', p + 1), b = a == std::string::npos ? a : url.find('/', a + 1);
    if (b == std::string::npos) return false;
    size_t c2 = url.find('/', b + 1);
    std::string what = url.substr(b + 1, c2 == std::string::npos ? c2 : c2 - b - 1);
    if (what != "issues" && what != "pull" && what != "discussions") return false;
    return o_.repo.empty() || url.substr(p + 1, b - p - 1) != lower(o_.repo);
  }

  // A kept URL is plain text where the autolinker does not run (inside brackets, where GitHub
  // would still find references): one holding a mention or another repository's `owner/repo#N`
  // after a non-alphanumeric byte (`?next=%eevil/repo#7`, `/@bob`) is wrapped whole.
  bool holds_reference(size_t x, size_t y) const {
    std::string url;
    for (size_t z = x; z < y; ++z) url += u_[z].c;
    auto name = [&](size_t i) { return i < url.size() && (name_char(url[i]) || url[i] == '.'); };
    // a start inside a name run that failed fails alike: go on after the run (linear)
    for (size_t i = 1; i + 1 < url.size(); ++i) {
      if (is_alnum(url[i - 1])) continue;
      if (url[i] == '@' && is_alnum(url[i + 1])) return true;
      size_t e = i;
      while (name(e)) ++e;
      if (e == i) continue;
      if (e >= url.size() || url[e] != '/') {
        i = e - 1;
        continue;
      }
      size_t slash = e++;
      while (name(e)) ++e;
      bool number = e > slash + 1 && e + 1 < url.size() && url[e] == '#' && is_digit(url[e + 1]);
      size_t d = e + 1;
      while (number && d < url.size() && is_digit(url[d])) ++d;
      if (number && (d == url.size() || !word_char(url[d])) &&
          (o_.repo.empty() || url.substr(i, e - i) != lower(o_.repo)))
        return true;
      i = slash;  // a name after the slash may start one (`a/b/c#1`)
    }
    return false;
  }

  // A closing keyword at x: returns the first unit of the reference it would close, end set
  // past it; 0 when there is none.
  size_t after_keyword(size_t x, size_t& end) const {
    size_t w = x;
    while (is_alpha(c(w))) ++w;
    if (w - x < 3 || w - x > 9) return 0;
    std::string word;
    for (size_t y = x; y < w; ++y) word += u_[y].c;
    bool kw = false;
    for (auto k : kClosingWords) kw = kw || word == k;
    if (!kw) return 0;
    size_t r = w;
    if (c(r) == ':') ++r;
    while (c(r) == ' ' || c(r) == '\t') ++r;
    if (r == w || r >= u_.size()) return 0;
    if (o_.commit && (kind(r) == kCode || kind(r) == kNeutral)) {
      // A commit message is read as plain text: a code span (or a <code> element) holding `#`
      // right after the keyword may still be the reference it closes.
      bool hash = false;
      for (end = r; end < u_.size() && kind(end) == kind(r); ++end) hash = hash || u_[end].c == '#';
      return hash ? r : 0;
    }
    if (kind(r) == kLink) {  // an issue or pull request URL, whole
      end = r;
      while (end < u_.size() && kind(end) == kLink) ++end;
      return r;
    }
    if (c(r) == '#') {
      size_t d = number_end(r);
      return d ? (end = d, r) : 0;
    }
    size_t e = r;
    while (name_char(c(e)) || c(e) == '.') ++e;
    if (e == r || c(e) != '/') return 0;
    ++e;
    while (name_char(c(e)) || c(e) == '.') ++e;
    if (c(e) != '#') return 0;
    size_t d = number_end(e);
    if (d == 0) return 0;
    end = d;
    return r;
  }

  // A title shows <code> as text, so there backticks wrap, where they can only pair with each
  // other: no backtick outside code in the text, none next to the wrapped part.
  void wrap(size_t x, size_t y) {
    size_t b = u_[x].b, e = u_[y - 1].e;
    out_.copy(in_, copied_, b);
    bool ticks = ticks_ok_ && (out_.size() == 0 || out_.s.back() != '`') &&
                 (e >= in_.size() || in_.s[e] != '`');
    put_inert(out_, ticks ? "`" : "<code>", in_.s[b], kNeutral);
    out_.put(std::string_view(in_.s).substr(b, e - b), kNeutral);
    out_.put(ticks ? "`" : "</code>", kNeutral);
    copied_ = e;
    wrapped_ = true;
  }

  // In a commit message the reference a closing keyword would close goes: wrapping it does not
  // stop GitHub from reading it there.
  void remove(size_t x, size_t y) {
    size_t b = u_[x].b, e = u_[y - 1].e;
    out_.copy(in_, copied_, b);
    put_inert(out_, "(reference removed)", in_.s[b], kNeutral);
    copied_ = e;
    wrapped_ = true;
  }

  const Marked& in_;
  const SanitizeOptions& o_;
  SanitizeStats& st_;
  std::vector<FoldUnit> u_;
  std::vector<uint8_t> k_;
  Marked out_;
  size_t copied_ = 0;
  bool wrapped_ = false;
  bool ticks_ok_ = false;
};

}  // namespace

Marked neutralize_references(const Marked& in, const SanitizeOptions& o, SanitizeStats& st,
                             bool ticks) {
  return References(in, o, st, ticks).run();
}

Marked neutralize_templates(const Marked& in) {
  Marked out;
  out.s.reserve(in.size());
  const std::string& s = in.s;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = s[i];
    bool brace = (c == '{' || c == '}') && in.k[i] != kCode;
    bool run = brace && ((i + 1 < in.size() && s[i + 1] == c && in.k[i + 1] != kCode) ||
                         (i > 0 && s[i - 1] == c && in.k[i - 1] != kCode));
    if (run)
      put_inert(out, c == '{' ? "&#123;" : "&#125;", c,
                uint8_t(in.k[i] == kProse ? uint8_t(kNeutral) : in.k[i]));
    else
      out.put(c, in.k[i]);
  }
  return out;
}

}  // namespace aw::sanitize_detail
