// Links: which URLs survive, and the parts of links GitHub does not show (titles, image alt
// text, reference definitions) that could carry hidden text.
#include <algorithm>
#include <string>

#include "check/sanitize_marked.h"

namespace aw::sanitize_detail {
namespace {

bool is_xdigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hexval(char c) {
  return c <= '9' ? c - '0' : (lower_c(c) - 'a' + 10);
}

// Percent-escapes and numeric or named character references decoded, lower-cased; for judging
// a scheme or a path, never for display.
std::string decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && is_xdigit(s[i + 1]) && is_xdigit(s[i + 2])) {
      out += char(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
      i += 2;
    } else if (s[i] == '&') {
      size_t semi = s.find(';', i);
      if (semi == std::string_view::npos || semi - i > 10) {
        out += '&';
        continue;
      }
      std::string_view name = s.substr(i + 1, semi - i - 1);
      long v = -1;
      if (name.size() > 1 && name[0] == '#')
        v = (name[1] == 'x' || name[1] == 'X')
                ? std::strtol(std::string(name.substr(2)).c_str(), nullptr, 16)
                : std::strtol(std::string(name.substr(1)).c_str(), nullptr, 10);
      else if (name == "colon")
        v = ':';
      else if (name == "sol")
        v = '/';
      if (v > 0 && v < 128) {
        out += char(v);
        i = semi;
      } else {
        out += '&';
      }
    } else {
      out += s[i];
    }
  }
  return lower(out);
}

// A scheme separator at i: ':', "%3a", or a character reference for ':'. Length or 0.
size_t separator_at(std::string_view s, size_t i) {
  if (s[i] == ':') return 1;
  if (s[i] == '%' && i + 2 < s.size() && s[i + 1] == '3' && lower_c(s[i + 2]) == 'a') return 3;
  if (s[i] != '&' || i + 4 >= s.size() || (s[i + 1] != '#' && lower_c(s[i + 1]) != 'c')) return 0;
  for (std::string_view e : {"&#58;", "&#058;", "&#x3a;", "&#x003a;", "&colon;"})
    if (lower(s.substr(i, e.size())) == e) return e.size();
  return 0;
}

bool scheme_char(char c) {
  return is_alnum(c) || c == '+' || c == '.' || c == '-';
}

// Start of the scheme ending at sep (at most 32 bytes back, never before lo): letters, digits,
// + . - and their percent or character-reference spellings. `encoded` when any were used.
size_t scheme_start(std::string_view s, size_t sep, size_t lo, bool& encoded) {
  size_t b = sep;
  while (b > lo && sep - b < 32) {
    char c = s[b - 1];
    if (scheme_char(c)) {
      --b;
    } else if (c == '%' && b + 1 < sep && is_xdigit(s[b]) && is_xdigit(s[b + 1]) &&
               scheme_char(char(hexval(s[b]) * 16 + hexval(s[b + 1])))) {
      --b, encoded = true;
    } else if (c == ';') {
      size_t amp = s.rfind('&', b - 1);
      if (amp == std::string_view::npos || amp < lo || b - amp > 10) break;
      std::string d = decode(s.substr(amp, b - amp));
      if (d.size() != 1 || !scheme_char(d[0])) break;
      b = amp, encoded = true;
    } else {
      break;
    }
  }
  while (b < sep && !is_alpha(s[b]) && s[b] != '%' && s[b] != '&') ++b;
  return b;
}

bool one_of(const std::string& w, std::initializer_list<std::string_view> set) {
  for (auto x : set)
    if (w == x) return true;
  return false;
}

bool dangerous_scheme(const std::string& s) {
  return one_of(s, {"javascript", "data", "vbscript", "file", "mailto", "tel", "sms", "callto",
                    "intent", "blob", "about", "view-source", "jar", "facetime", "skype"});
}
bool web_scheme(const std::string& s) {
  return one_of(s, {"http", "https", "ftp", "ftps", "ws", "wss", "git", "ssh", "sftp", "svn", "irc",
                    "ircs", "news", "nntp", "telnet", "gopher"});
}

// The entities the sanitizer writes for `{`, `}` and `<`, where a URL ended before them. A URL
// also ends at `&#123` without `;` (a second pass reads the same text as the first: reduce_html
// leaves it inside a kept link and escapes it after one); a scheme is followed by the entities
// as written only.
bool written_stop(std::string_view s, size_t at, bool exact) {
  std::string_view t = s.substr(at, 6);
  if (t.substr(0, 4) == "&lt;") return true;
  if (!exact) t = t.substr(0, 5);
  return t == (exact ? "&#123;" : "&#123") || t == (exact ? "&#125;" : "&#125");
}

// A URL ends where markdown would end it, and at the entities the sanitizer writes itself (so
// that `https://x{{` or `https://x<y` ends at the same place once written as entities).
size_t url_end(std::string_view s, size_t from) {
  size_t e = from;
  while (e < s.size() && !url_char_stop(s[e]) && !written_stop(s, e, false)) ++e;
  while (e > from && std::string_view(".,;:!?*_~").find(s[e - 1]) != std::string_view::npos) --e;
  return e;
}

// An ASCII host name (no IDN, no punycode label unless listed exactly) that the domains allow.
bool host_ok(const std::string& host, const std::vector<std::string>& allowed) {
  if (host.empty() || host.front() == '.' || host.back() == '.' ||
      host.find("..") != std::string::npos ||
      host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos)
    return false;
  bool exact = std::find(allowed.begin(), allowed.end(), host) != allowed.end();
  bool puny = host.rfind("xn--", 0) == 0 || host.find(".xn--") != std::string::npos;
  return (exact || !puny) && host_allowed(host, allowed);
}

// A second URL in a kept link's path, query or fragment (an open redirect): `//`, a backslash
// form, or a scheme, also percent-encoded (decoded up to three times).
bool carries_url(std::string_view rest) {
  std::string d(rest);
  for (int i = 0; i < 3; ++i) d = decode(d);
  for (std::string_view bad : {"//", "\\", "http:", "https:", "javascript:", "data:", "www."})
    if (d.find(bad) != std::string::npos) return true;
  return false;
}

// GitHub's autolinker reads a URL on to the next white space and then trims trailing
// punctuation: a quote right after a host is part of the link (`https://github.com".evil.com`)
// unless only such punctuation follows it.
bool quote_continues(std::string_view s, size_t at) {
  if (at >= s.size() || s[at] != '"') return false;
  for (size_t i = at; i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\n'; ++i)
    if (std::string_view("?!.,:*_~'\")").find(s[i]) == std::string_view::npos) return true;
  return false;
}

// GitHub's autolinker takes everything up to white space (before code spans are found), so a
// backtick glued to a URL is part of its link: the code span it opens, trusted here, would be
// broken up (and what it holds, `<!-- -->` say, read as markup). Looked at in the full text.
bool backtick_glued(std::string_view full, size_t at) {
  for (size_t i = at;
       i < full.size() && std::string_view(" \t\n\r\f\v").find(full[i]) == std::string_view::npos;
       ++i)
    if (full[i] == '`') return true;
  return false;
}

struct Url {
  size_t start, end;
  bool keep;
  size_t cut = std::string_view::npos;  // a kept URL carrying another is kept up to here only
};

// A Windows path (`C:\path\to\file`, `C:/x`): one letter as written before `:`, then one slash
// or backslash and no second. Neither GitHub's autolinker nor a browser reads a one-letter scheme
// as a link (GitHub drops such an href), so it stays text; `C://x` and encoded forms do not.
bool drive_path(std::string_view s, size_t b, size_t sep, size_t n) {
  size_t at = sep + n;
  auto slash = [&](size_t i) { return i < s.size() && (s[i] == '/' || s[i] == '\\'); };
  return n == 1 && sep == b + 1 && is_alpha(s[b]) && slash(at) && !slash(at + 1);
}

// Where a kept URL that carries another one in its path, query or fragment [from, end) is cut:
// after the last `/ ? # & = ; ,` (not between two slashes) before which none is carried, so that
// `https://github.com/login?return_to=https://evil.example/x` keeps its
// `https://github.com/login?return_to=`. npos when there is no such place. Whether a prefix
// carries one only changes once, from no to yes, as the prefix grows: a binary search finds it.
size_t nested_cut(std::string_view s, size_t from, size_t end) {
  std::vector<size_t> at;
  for (size_t x = from + 1; x < end; ++x)
    if (std::string_view("/?#&=;,").find(s[x - 1]) != std::string_view::npos &&
        !(s[x - 1] == '/' && s[x] == '/'))
      at.push_back(x);
  size_t lo = 0, hi = at.size();  // at[0, lo) carry none, at[hi, ...) carry one
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (carries_url(s.substr(from, at[mid] - from)))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo == 0 ? std::string_view::npos : at[lo - 1];
}

// The URL that a separator at sep (length n) ends the scheme of, if any. s ends where the
// stretch of prose ends; full goes on into the code after it.
bool url_at_separator(std::string_view s, std::string_view full, size_t lo, size_t sep, size_t n,
                      const SanitizeOptions& o, Url& u) {
  bool encoded = n > 1;
  size_t b = scheme_start(s, sep, lo, encoded);
  if (b == sep) return false;
  std::string scheme = decode(s.substr(b, sep - b));
  if (scheme.empty() || !is_alpha(scheme[0]) || drive_path(s, b, sep, n)) return false;
  size_t body = sep + n;
  bool exact_slashes = s.substr(body, 2) == "//";
  while (body < s.size()) {  // any mix of slashes and backslashes, also percent-encoded
    // but a backslash that escapes other punctuation: markdown shows `closes:\]` as `closes:]`
    // (and the sanitizer writes such escapes itself, before a bracket it shows as text)
    bool escape = s[body] == '\\' && body + 1 < s.size() && is_ascii_punct(s[body + 1]) &&
                  s[body + 1] != '/' && s[body + 1] != '\\';
    if (s[body] == '/' || (s[body] == '\\' && !escape)) {
      ++body;
    } else if (s[body] == '%' && body + 2 < s.size() && s[body + 1] == '2' &&
               lower_c(s[body + 2]) == 'f') {
      body += 3, exact_slashes = false;
    } else if (s[body] == '%' && body + 2 < s.size() && s[body + 1] == '5' &&
               lower_c(s[body + 2]) == 'c') {
      body += 3, exact_slashes = false;
    } else {
      break;
    }
  }
  bool hier = body > sep + n;
  bool next_ok =
      sep + n < s.size() && !url_char_stop(s[sep + n]) && !written_stop(s, sep + n, true);
  // A dangerous scheme runs with anything after it that a link destination goes on with, a
  // bracket, quote or escape too (`[x](javascript:\(alert(1)))` is `javascript:(alert(1))`);
  // white space, `)` and `>` end it there, empty.
  bool glued =
      sep + n < s.size() && std::string_view(" \t\n)>").find(s[sep + n]) == std::string_view::npos;
  bool is_url =
      hier || (glued && dangerous_scheme(scheme)) || (next_ok && (web_scheme(scheme) || encoded));
  if (!is_url) return false;
  u.start = b;
  u.end = std::max(url_end(s, body), body);
  exact_slashes = exact_slashes && body == sep + n + 2;
  std::string_view rest = s.substr(body, u.end - body);
  size_t auth_end = std::min(rest.find_first_of("/?#"), rest.size());
  std::string_view authority = rest.substr(0, auth_end);
  bool userinfo = authority.find('@') != std::string_view::npos ||
                  lower(authority).find("%40") != std::string::npos;
  std::string host = lower(authority.substr(0, authority.find(':')));
  // Markdown may go on where the URL ends: in `[x](https://github.com\.evil.com)` the escape
  // makes the host github.com.evil.com, so a host the text could continue is not kept.
  // GitHub's autolinker also reads on over `(`, `[`, `` ` ``, `|` and the `&#123;` that `{`
  // becomes, and the `&lt;` that `<` becomes (it stops at quotes and drops an unbalanced `)`).
  // It runs before code spans are found, so it reads on over the backtick of what looks like a
  // code span after the host too (`https://github.com`@evil`): the byte after is looked at in
  // the full text.
  bool host_open = auth_end == rest.size() && u.end < full.size() &&
                   (std::string_view("\\&{}([`|<").find(full[u.end]) != std::string_view::npos ||
                    quote_continues(full, u.end));
  bool keep = scheme == "https" && !encoded && exact_slashes && !userinfo && !host_open &&
              !backtick_glued(full, u.end) && host_ok(host, o.allowed_domains);
  size_t from = body + auth_end;  // path, query and fragment
  u.keep = keep && !carries_url(s.substr(from, u.end - from));
  if (keep && !u.keep) {  // an open redirect: the allowed part stays, the URL it carries goes
    u.cut = nested_cut(s, from, u.end);
    u.keep = u.cut != std::string_view::npos;
  }
  return true;
}

// URLs in one stretch of text without code: kept ones marked as links, others replaced.
void urls_in(const Marked& in, size_t lo, size_t hi, const SanitizeOptions& o, SanitizeStats& st,
             Marked& out) {
  std::string_view full = in.s;
  std::string_view s = full.substr(0, hi);
  size_t copied = lo;
  for (size_t i = lo; i < hi;) {
    Url u{};
    bool found = false;
    // what comes before is looked at in the full text: whether the code before it is trusted
    // may change on a second pass (a link title holding a backtick is emptied by the first)
    bool word_start = i == 0 || !is_alnum(full[i - 1]);
    if (word_start && lower_c(s[i]) == 'w' && lower(s.substr(i, 4)) == "www.") {
      u = {i, std::max(url_end(s, i), i + 4), false};
      found = true;
    } else if (s.substr(i, 2) == "//" && i + 2 < hi && is_alnum(s[i + 2]) &&
               (i == 0 ||
                std::string_view("(<\"' \n").find(full[i - 1]) != std::string_view::npos)) {
      u = {i, url_end(s, i + 2), false};  // scheme-relative, after an opening bracket or quote
      found = true;
    } else if (size_t n = separator_at(s, i)) {
      found = url_at_separator(s, full, copied, i, n, o, u);
      if (!found) {
        i += n;
        continue;
      }
    }
    if (!found) {
      ++i;
      continue;
    }
    ++st.links;
    out.copy(in, copied, u.start);
    if (u.keep) {
      size_t to = std::min(u.cut, u.end);
      out.put(s.substr(u.start, to - u.start), kLink);
      if (to < u.end) {  // what follows `(` after a path is still a path of the kept host
        out.put("(link removed)", kNeutral);
        ++st.links_removed;
      }
    } else {
      out.put("(link removed)", kNeutral);
      ++st.links_removed;
    }
    copied = i = std::max(u.end, i + 1);
  }
  out.copy(in, copied, hi);
}

// Lines of m: [b, e) without the newline.
template <typename F>
void each_line(const std::string& s, F f) {
  for (size_t b = 0;;) {
    size_t nl = s.find('\n', b);
    f(b, nl == std::string::npos ? s.size() : nl);
    if (nl == std::string::npos) return;
    b = nl + 1;
  }
}

}  // namespace

bool url_char_stop(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '<' || c == '>' || c == '"' || c == '\'' ||
         c == ')' || c == ']' || c == '`' || c == '(' || c == '[' || c == '{' || c == '}' ||
         c == '|' || c == '\\';
}

Marked filter_urls(const Marked& in, const SanitizeOptions& o, SanitizeStats& st) {
  Marked out;
  out.s.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    size_t j = i;
    if (in.k[i] == kCode) {
      while (j < in.size() && in.k[j] == kCode) ++j;
      out.copy(in, i, j);
    } else {
      while (j < in.size() && in.k[j] != kCode) ++j;
      urls_in(in, i, j, o, st, out);
    }
    i = j;
  }
  return out;
}

namespace {

// Per line: where each unescaped prose `[` closes (or npos), skipping code and the brackets in
// `skip` (per byte of the line: escaped by a guard or removed with a title: a second pass does not
// see them either).
std::vector<size_t> bracket_matches(const Marked& m, const std::vector<bool>& esc,
                                    const std::vector<char>& skip, size_t b, size_t e) {
  std::vector<size_t> match(e - b, std::string::npos), stack;
  for (size_t i = b; i < e; ++i) {
    if (m.k[i] == kCode || skip[i - b]) continue;
    if (esc[i]) {
      ++i;
      continue;
    }
    if (m.s[i] == '[') stack.push_back(i);
    if (m.s[i] == ']' && !stack.empty()) {
      match[stack.back() - b] = i;
      stack.pop_back();
    }
  }
  return match;
}

// Footnote labels and images on the line [b, e), once guards and title removals are known.
// `[^label]`: GitHub shows a footnote label as raw text (no inline HTML in it, so the <code> a
// mention is wrapped in would show as text); one that holds `@` or `#` (or `{{`, written
// `&#123;&#123;` later), or may close on a later line, is escaped and renders as ordinary text. An
// image loses its alt text; one whose `]` is not on the line (or was escaped) is escaped and shows
// as text. Each guard can unpair other brackets, so this runs until no guard is added: a second
// pass then pairs them alike.
void footnotes_and_images(const Marked& in, const std::vector<bool>& esc, size_t b, size_t e,
                          std::vector<char>& guard, std::vector<char>& drop) {
  const std::string& s = in.s;
  std::vector<char> skip(e - b, 0);  // per byte of the line
  std::vector<size_t> match;
  for (int round = 0, more = 1; more; ++round) {
    more = 0;
    for (size_t x = b; x < e; ++x) skip[x - b] = guard[x] || drop[x];
    if (round == 32) {  // a long chain of unpairings: escape every bracket of the line instead
      for (size_t x = b; x < e; ++x)
        if (s[x] == '[' && in.k[x] == kProse && !skip[x - b] && !(x > b && esc[x - 1]))
          guard[x] = skip[x - b] = 1;
      break;
    }
    match = bracket_matches(in, esc, skip, b, e);
    for (size_t x = b; x + 1 < e; ++x) {
      if (in.k[x] == kCode || (x > b && esc[x - 1])) continue;
      size_t open = s[x] == '!' ? x + 1 : x;
      if (open >= e || s[open] != '[' || in.k[open] != kProse || skip[open - b]) continue;
      size_t close = match[open - b];
      bool footnote = s[x] == '[' && s[x + 1] == '^';
      std::string_view label =
          std::string_view(s).substr(x, (close == std::string::npos ? e : close) - x);
      bool refs = label.find_first_of("@#") != std::string_view::npos ||
                  label.find("{{") != std::string_view::npos ||  // `&#123;` later, `#` in it
                  label.find("}}") != std::string_view::npos;
      if ((footnote && refs) || ((footnote || open > x) && close == std::string::npos))
        guard[open] = skip[open - b] = 1, more = 1;
    }
  }
  for (size_t x = b; x + 1 < e; ++x) {
    if (s[x] != '!' || s[x + 1] != '[' || in.k[x + 1] != kProse || skip[x + 1 - b]) continue;
    if (in.k[x] == kCode || (x > b && esc[x - 1])) continue;
    size_t close = match[x + 1 - b];
    if (close + 1 < e && (s[close + 1] == '(' || s[close + 1] == '['))
      std::fill(drop.begin() + long(x + 2), drop.begin() + long(close), 1);
  }
}

// The destination and optional title after `](` at p on the line ending at e: returns the end
// of the destination and sets [title_from, title_to) to the title's text (empty without one), or
// npos when nothing parses.
constexpr size_t kTooLong = std::string::npos - 1;

size_t link_dest(const Marked& m, const std::vector<bool>& esc, size_t p, size_t e,
                 size_t& title_from, size_t& title_to, const std::vector<size_t>& next_close,
                 size_t b, size_t w) {
  const std::string& s = m.s;
  size_t j = p;
  while (j < e && (s[j] == ' ' || s[j] == '\t')) ++j;
  int depth = 0;
  size_t limit = std::min(e, j + 4096);
  for (; j < limit && s[j] != ' ' && s[j] != '\t'; ++j) {
    if (esc[j]) {
      ++j;
      continue;
    }
    if (s[j] == '(') ++depth;
    if (s[j] == ')' && depth-- == 0) break;
  }
  if (j == limit && limit < e) return kTooLong;
  size_t dest_end = j;
  while (j < e && (s[j] == ' ' || s[j] == '\t')) ++j;
  title_from = title_to = dest_end;
  // The line ends where the link could still go on (its title or `)` on a next line that is not
  // blank, which CommonMark allows): what follows cannot be told from this line.
  bool goes_on = e < s.size() && s.find_first_not_of(" \t", e + 1) != std::string::npos &&
                 s[s.find_first_not_of(" \t", e + 1)] != '\n';
  if (j == e) return goes_on ? kTooLong : std::string::npos;
  if (j > dest_end && (s[j] == '"' || s[j] == '\'' || s[j] == '(')) {
    int which = s[j] == '"' ? 0 : s[j] == '\'' ? 1 : 2;
    size_t close = next_close[size_t(which) * w + (j + 1 - b)];
    if (close == std::string::npos) return goes_on ? kTooLong : std::string::npos;  // spans lines
    title_from = j + 1;
    title_to = close;
    j = close + 1;
    while (j < e && (s[j] == ' ' || s[j] == '\t')) ++j;
    if (j == e) return goes_on ? kTooLong : std::string::npos;
  }
  return s[j] == ')' ? dest_end : std::string::npos;
}

}  // namespace

Marked strip_hidden_link_text(const Marked& in) {
  std::vector<bool> esc = escape_starts(in);
  const std::string& s = in.s;
  std::vector<char> drop(in.size(), 0);   // bytes removed
  std::vector<char> guard(in.size(), 0);  // a backslash goes before this byte
  each_line(s, [&](size_t b, size_t e) {
    std::string_view line = std::string_view(s).substr(b, e - b);
    if (line.find_first_of("[]") == std::string_view::npos) return;
    // A reference definition: its title is never shown, nor is the definition itself when
    // nothing links to it; keep only definitions of kept https links, without title.
    size_t i = b;
    while (i < e && i - b < 3 && s[i] == ' ') ++i;
    while (i < e && (s[i] == '>' || s[i] == ' ')) ++i;
    if (i < e && s[i] == '[' && in.k[i] == kProse && i + 1 < e && s[i + 1] != '^') {
      size_t close = s.find(']', i);
      if (close < e && close + 1 < e && s[close + 1] == ':' && s.find('[', i + 1) > close) {
        size_t d = close + 2;
        while (d < e && (s[d] == ' ' || s[d] == '\t')) ++d;
        size_t de = d;
        while (de < e && s[de] != ' ' && s[de] != '\t') ++de;
        bool kept = de > d && in.k[d] == kLink && in.k[de - 1] == kLink;
        size_t t = de;
        while (t < e && (s[t] == ' ' || s[t] == '\t')) ++t;
        size_t next = e < s.size() ? e + 1 : e;
        while (next < s.size() && (s[next] == ' ' || s[next] == '\t')) ++next;
        bool title_next_line =
            next < s.size() && std::string_view("\"'(").find(s[next]) != std::string_view::npos;
        if (kept && t < e) {  // a title on the line: drop it if it ends there
          char q = s[t] == '(' ? ')' : s[t];
          bool opener = s[t] == '"' || s[t] == '\'' || s[t] == '(';
          size_t qe = opener ? s.find(q, t + 1) : std::string::npos;
          if (opener && qe < e && s.find_first_not_of(" \t", qe + 1) >= e)
            std::fill(drop.begin() + long(t + 1), drop.begin() + long(qe), 1);
          else
            kept = false;
        }
        if (!kept || title_next_line) guard[i] = 1;
      }
    }
    // next unescaped `"`, `'`, `)` from each position of the line
    size_t w = e - b + 1;
    std::vector<size_t> next_close(3 * w, std::string::npos);
    for (size_t x = e; x-- > b;) {
      for (int q = 0; q < 3; ++q)
        next_close[size_t(q) * w + (x - b)] = next_close[size_t(q) * w + (x + 1 - b)];
      bool escaped = x > b && esc[x - 1];
      if (!escaped && in.k[x] != kCode) {
        if (s[x] == '"') next_close[x - b] = x;
        if (s[x] == '\'') next_close[w + x - b] = x;
        if (s[x] == ')') next_close[2 * w + x - b] = x;
      }
    }
    for (size_t x = b; x + 1 < e; ++x) {
      if (in.k[x] == kCode || (x > b && esc[x - 1])) continue;
      if (s[x] == ']' && s[x + 1] == '(' && in.k[x] == kProse) {
        size_t title_from = 0, title_to = 0;
        size_t de = link_dest(in, esc, x + 2, e, title_from, title_to, next_close, b, w);
        if (de == kTooLong) {
          guard[x] = 1;  // could not tell where it ends: show it as text rather than guess
        } else if (de != std::string::npos && title_to > title_from) {
          // the title's text, not its quotes: what is left parses as it did
          std::fill(drop.begin() + long(title_from), drop.begin() + long(title_to), 1);
        }
      }
    }
    footnotes_and_images(in, esc, b, e, guard, drop);
  });
  Marked out;
  out.s.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (guard[i] && !drop[i]) out.put('\\', kProse);  // a guard in removed alt text goes too
    if (!drop[i]) out.put(s[i], in.k[i]);
  }
  return out;
}

}  // namespace aw::sanitize_detail
