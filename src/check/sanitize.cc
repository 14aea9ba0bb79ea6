// Text sanitizing, as passes over a string. Each pass is a pure function of its input, so the
// result is deterministic and sanitizing twice gives the same text as once.
#include "check/sanitize.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace aw {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
char lower_c(char c) {
  return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}
std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = lower_c(c);
  return o;
}

// 1. Terminal escapes: they can hide text or rewrite what a terminal shows.
std::string strip_ansi(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '\x1b') {
      out += in[i];
      continue;
    }
    if (i + 1 >= in.size()) break;
    char k = in[i + 1];
    if (k == '[') {  // CSI: parameters, intermediates, one final byte
      size_t j = i + 2;
      while (j < in.size() && in[j] >= 0x20 && in[j] <= 0x3F) ++j;
      if (j < in.size() && in[j] >= 0x40 && in[j] <= 0x7E) ++j;
      i = j - 1;
    } else if (k == ']' || k == 'P' || k == 'X' || k == '^' || k == '_') {  // string to BEL/ST
      size_t j = i + 2;
      while (j < in.size() && in[j] != '\x07' &&
             !(in[j] == '\x1b' && j + 1 < in.size() && in[j + 1] == '\\'))
        ++j;
      i = (j < in.size() && in[j] == '\x1b') ? j + 1 : j;
    } else {
      i += 1;  // two-byte escape
    }
  }
  return out;
}

void put_utf8(std::string& out, int32_t cp) {
  utf8proc_uint8_t buf[4];
  auto n = utf8proc_encode_char(cp, buf);
  out.append(reinterpret_cast<char*>(buf), size_t(n));
}

bool drop_codepoint(int32_t c) {
  if (c == '\n' || c == '\t') return false;
  if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F)) return true;
  if ((c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
      (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF || c == 0x061C || c == 0x180E || c == 0x00AD ||
      c == 0x2028 || c == 0x2029 || (c >= 0xE0000 && c <= 0xE007F) || (c >= 0xFFF9 && c <= 0xFFFB))
    return true;
  return false;
}

// 2 and 3. Valid UTF-8 in NFC, without controls or invisible formatting.
std::string clean_unicode(std::string_view in) {
  std::string valid;
  valid.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    utf8proc_int32_t cp;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(in.data() + i),
                              utf8proc_ssize_t(in.size() - i), &cp);
    if (n <= 0) {
      put_utf8(valid, 0xFFFD);
      ++i;
      continue;
    }
    if (cp == '\r') {
      bool crlf = i + 1 < in.size() && in[i + 1] == '\n';
      if (!crlf) valid += '\n';
    } else if (cp != 0) {
      valid.append(in.data() + i, size_t(n));
    }
    i += size_t(n);
  }
  auto* nfc = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(valid.c_str()));
  std::string norm = nfc ? reinterpret_cast<char*>(nfc) : valid;
  std::free(nfc);
  std::string out;
  out.reserve(norm.size());
  for (size_t i = 0; i < norm.size();) {
    utf8proc_int32_t cp;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(norm.data() + i),
                              utf8proc_ssize_t(norm.size() - i), &cp);
    if (n <= 0) n = 1, cp = 0xFFFD;
    if (!drop_codepoint(cp)) out.append(norm.data() + i, size_t(n));
    i += size_t(n);
  }
  return out;
}

constexpr std::string_view kSafeTags[] = {
    "b",  "i",       "em",      "strong",     "code", "pre", "br",  "p",   "ul", "ol",
    "li", "details", "summary", "blockquote", "hr",   "sub", "sup", "kbd", "del"};

// 4. HTML: comments hide text from readers; other tags and entities can smuggle anything.
std::string reduce_html(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '&') {
      size_t j = i + 1;
      while (j < in.size() && j - i < 32 && (is_alnum(in[j]) || in[j] == '#')) ++j;
      std::string_view name = in.substr(i + 1, j - i - 1);
      bool entity = j > i + 1 && j < in.size() && in[j] == ';';
      // Named escapes of plain ASCII stay (keeps sanitizing idempotent); any other entity could
      // spell a bidi or invisible character, so its `&` is escaped.
      bool harmless = name == "lt" || name == "gt" || name == "amp" || name == "quot";
      out += (entity && !harmless) ? "&amp;" : "&";
      continue;
    }
    if (c != '<') {
      out += c;
      continue;
    }
    if (in.substr(i, 4) == "<!--") {
      size_t end = in.find("-->", i + 4);
      i = end == std::string_view::npos ? in.size() : end + 2;
      continue;
    }
    size_t j = i + 1;
    bool closing = j < in.size() && in[j] == '/';
    if (closing) ++j;
    size_t name_start = j;
    while (j < in.size() && (is_alnum(in[j]) || in[j] == '-')) ++j;
    std::string name = lower(in.substr(name_start, j - name_start));
    size_t gt = in.find_first_of("<>", j);
    bool safe = false;
    for (auto t : kSafeTags) safe = safe || name == t;
    bool tag_shape = !name.empty() && (name[0] < '0' || name[0] > '9') && gt != in.npos &&
                     in[gt] == '>' && (j == gt || in[j] == ' ' || in[j] == '/' || in[j] == '\n');
    if (safe && tag_shape) {
      out += closing ? "</" : "<";
      out += name;
      out += '>';
      i = gt;
    } else {
      out += "&lt;";
    }
  }
  return out;
}

bool url_char_stop(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '<' || c == '>' || c == '"' || c == '\'' ||
         c == ')' || c == ']' || c == '`' || c == '(' || c == '[' || c == '{' || c == '}' ||
         c == '|' || c == '\\';
}

size_t url_end(std::string_view s, size_t from) {
  size_t e = from;
  while (e < s.size() && !url_char_stop(s[e])) ++e;
  while (e > from && std::string_view(".,;:!?*_~").find(s[e - 1]) != std::string_view::npos) --e;
  return e;
}

// 5. Links: keep only https links to allowed hosts, without user info.
std::string filter_urls(std::string_view in, const std::vector<std::string>& allowed,
                        SanitizeStats& st) {
  std::string out;
  out.reserve(in.size());
  size_t i = 0;
  // Next positions of each kind of candidate, recomputed only once passed (linear overall).
  size_t sep = 0, slashes = 0, www = 0;
  bool fresh = false;
  auto next_www = [&](size_t from) {
    for (size_t k = in.find("www.", from); k != std::string_view::npos; k = in.find("www.", k + 1))
      if (k == 0 || !is_alnum(in[k - 1])) return k;
    return std::string_view::npos;
  };
  while (i < in.size()) {
    size_t start = std::string_view::npos, body = 0;
    std::string scheme;
    if (!fresh || sep < i) sep = in.find(':', i);
    if (!fresh || slashes < i) slashes = in.find("//", i);
    if (!fresh || www < i) www = next_www(i);
    fresh = true;
    size_t cand = std::min({sep, slashes, www});
    if (cand == std::string_view::npos) break;
    if (cand == www) {
      start = www, body = www, scheme = "http";
    } else if (cand == sep) {
      size_t b = sep;
      while (b > i &&
             (is_alnum(in[b - 1]) || in[b - 1] == '+' || in[b - 1] == '.' || in[b - 1] == '-'))
        --b;
      while (b < sep && !((in[b] >= 'a' && in[b] <= 'z') || (in[b] >= 'A' && in[b] <= 'Z'))) ++b;
      scheme = lower(in.substr(b, sep - b));
      bool dangerous =
          scheme == "javascript" || scheme == "data" || scheme == "vbscript" || scheme == "file";
      bool hier = in.substr(sep + 1, 2) == "//";
      if (!scheme.empty() && (hier || dangerous)) {
        start = b;
        body = hier ? sep + 3 : sep + 1;
      }
    } else {  // scheme-relative "//host" after an opening bracket or quote
      bool opener = slashes == 0 ||
                    std::string_view("(<\"' \n").find(in[slashes - 1]) != std::string_view::npos;
      bool after_colon = slashes > 0 && in[slashes - 1] == ':';
      if (opener && !after_colon && slashes + 2 < in.size() && is_alnum(in[slashes + 2]))
        start = slashes, body = slashes + 2, scheme = "";
    }
    if (start == std::string_view::npos) {
      out.append(in.substr(i, cand + 1 - i));
      i = cand + 1;
      continue;
    }
    size_t end = url_end(in, body);
    std::string_view authority = in.substr(body, end - body);
    authority = authority.substr(0, authority.find_first_of("/?#"));
    bool userinfo = authority.find('@') != std::string_view::npos;
    std::string host = lower(authority.substr(0, authority.find(':')));
    bool keep = scheme == "https" && !userinfo && host_allowed(host, allowed);
    ++st.links;
    out.append(in.substr(i, start - i));
    if (keep) {
      out.append(in.substr(start, end - start));
    } else {
      out += "(link removed)";
      ++st.links_removed;
    }
    i = std::max(end, start + 1);
  }
  if (i < in.size()) out.append(in.substr(i));
  return out;
}

// 7. "fixes #12" would close an issue when the pull request merges.
std::string neutralize_closing(std::string_view in) {
  static constexpr std::string_view kWords[] = {"close", "closes",  "closed",   "fix",     "fixes",
                                                "fixed", "resolve", "resolves", "resolved"};
  std::string out;
  size_t i = 0, copied = 0;
  while (i < in.size()) {
    if (!((in[i] >= 'a' && in[i] <= 'z') || (in[i] >= 'A' && in[i] <= 'Z')) ||
        (i > 0 && (is_alnum(in[i - 1]) || in[i - 1] == '`'))) {
      ++i;
      continue;
    }
    size_t w = i;
    while (w < in.size() && is_alnum(in[w])) ++w;
    std::string word = lower(in.substr(i, w - i));
    bool kw = false;
    for (auto k : kWords) kw = kw || word == k;
    if (!kw) {
      i = w;
      continue;
    }
    size_t r = w;
    if (r < in.size() && in[r] == ':') ++r;
    size_t spaces = r;
    while (r < in.size() && (in[r] == ' ' || in[r] == '\t')) ++r;
    if (r == spaces && r == w) {  // needs a separator
      i = w;
      continue;
    }
    size_t ref_end = r;
    while (ref_end < in.size() && !url_char_stop(in[ref_end])) ++ref_end;
    std::string_view tok = in.substr(r, ref_end - r);
    // The reference itself: #N, owner/repo#N (digits end at a non-word character), or an
    // issue/pull URL (the whole link token).
    std::string_view ref;
    size_t hash = tok.find('#');
    if (hash != std::string_view::npos) {
      std::string_view owner_repo = tok.substr(0, hash);
      bool prefix_ok = owner_repo.empty() ||
                       (owner_repo.find('/') != std::string_view::npos &&
                        owner_repo.find_first_not_of(
                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") ==
                            std::string_view::npos);
      size_t d = hash + 1;
      while (d < tok.size() && tok[d] >= '0' && tok[d] <= '9') ++d;
      bool bounded = d == tok.size() || !(is_alnum(tok[d]) || tok[d] == '_');
      if (prefix_ok && d > hash + 1 && bounded) ref = tok.substr(0, d);
    }
    if (ref.empty() && (tok.find("/issues/") != tok.npos || tok.find("/pull/") != tok.npos))
      ref = tok;
    if (ref.empty()) {
      i = w;
      continue;
    }
    size_t end = r + ref.size();
    out.append(in.substr(copied, i - copied));
    out += '`';
    out.append(in.substr(i, end - i));
    out += '`';
    copied = i = end;
  }
  out.append(in.substr(copied));
  return out;
}

// 6. @mentions notify people; wrapped in code they notify nobody.
std::string neutralize_mentions(std::string_view in, SanitizeStats& st) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char prev = i ? in[i - 1] : ' ';
    if (in[i] != '@' || is_alnum(prev) || prev == '`' || prev == '_' || prev == '.' ||
        prev == '/' || prev == '-' || i + 1 >= in.size() || !is_alnum(in[i + 1])) {
      out += in[i];
      continue;
    }
    size_t e = i + 1;
    while (e < in.size() && (is_alnum(in[e]) || in[e] == '-')) ++e;
    if (e + 1 < in.size() && in[e] == '/' && is_alnum(in[e + 1])) {  // @org/team
      ++e;
      while (e < in.size() && (is_alnum(in[e]) || in[e] == '-' || in[e] == '_' || in[e] == '.'))
        ++e;
    }
    out += '`';
    out.append(in.substr(i, e - i));
    out += '`';
    ++st.mentions;
    i = e - 1;
  }
  return out;
}

// 8. Cut on a code point boundary.
std::string cap(std::string s, size_t max_bytes, SanitizeStats& st) {
  if (s.size() <= max_bytes) return s;
  static constexpr std::string_view kEllipsis = "\xE2\x80\xA6";
  size_t cut = max_bytes >= kEllipsis.size() ? max_bytes - kEllipsis.size() : 0;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  if (max_bytes >= kEllipsis.size()) s += kEllipsis;
  st.truncated = true;
  return s;
}

}  // namespace

bool host_allowed(std::string_view host, const std::vector<std::string>& allowed) {
  if (host.empty()) return false;
  for (const auto& a : allowed) {
    if (a.rfind("*.", 0) == 0) {
      std::string_view suffix = std::string_view(a).substr(1);  // ".example.com"
      if (host.size() > suffix.size() && host.substr(host.size() - suffix.size()) == suffix)
        return true;
    } else if (host == a) {
      return true;
    }
  }
  return false;
}

std::string sanitize_text(std::string_view in, const std::vector<std::string>& allowed_domains,
                          size_t max_bytes, SanitizeStats* stats) {
  SanitizeStats local;
  SanitizeStats& st = stats ? *stats : local;
  std::string s = clean_unicode(strip_ansi(in));
  s = reduce_html(s);
  s = filter_urls(s, allowed_domains, st);
  s = neutralize_closing(s);
  s = neutralize_mentions(s, st);
  return cap(std::move(s), max_bytes, st);
}

}  // namespace aw
