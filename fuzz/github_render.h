// An oracle for the fuzzers: renders markdown with cmark-gfm (GitHub's own parser, with the
// extensions github.com uses) and looks in the HTML for what the sanitizer must have made
// inert: a live @mention, a live closing keyword or reference to another repository, a link or
// image off the allowed hosts, an HTML comment.
//   std::string why = rendered_problem(sanitized, {"github.com", "*.github.com"}, "o/r");
//   if (!why.empty()) abort();
// Header-only; link cmark-gfm and cmark-gfm-extensions.
#pragma once

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "check/sanitize.h"

namespace aw::fuzz {

inline std::string render_gfm(std::string_view md) {
  cmark_gfm_core_extensions_ensure_registered();
  int opts = CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES;
  cmark_parser* p = cmark_parser_new(opts);
  for (const char* name : {"table", "autolink", "strikethrough", "tagfilter"})
    if (cmark_syntax_extension* e = cmark_find_syntax_extension(name))
      cmark_parser_attach_syntax_extension(p, e);
  cmark_parser_feed(p, md.data(), md.size());
  cmark_node* doc = cmark_parser_finish(p);
  char* html = cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p));
  std::string out = html ? html : "";
  std::free(html);
  cmark_node_free(doc);
  cmark_parser_free(p);
  return out;
}

namespace detail {

inline bool word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
inline char low(char c) {
  return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

// Text of the DOM between two tags, character references decoded (the five cmark writes).
inline std::string decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    std::string_view n = s.substr(i + 1, semi == std::string_view::npos ? 0 : semi - i - 1);
    char c = n == "amp" ? '&' : n == "lt" ? '<' : n == "gt" ? '>' : n == "quot" ? '"' : 0;
    if (!c && n.size() > 1 && n[0] == '#') {
      long v = n[1] == 'x' ? std::strtol(std::string(n.substr(2)).c_str(), nullptr, 16)
                           : std::strtol(std::string(n.substr(1)).c_str(), nullptr, 10);
      c = v > 0 && v < 128 ? char(v) : '?';
    }
    if (!c) {
      out += '&';
      continue;
    }
    out += c;
    i = semi;
  }
  return out;
}

// `#N` at t[h] ending at a non-word character (GitHub does not link `#3x`).
inline bool issue_number(const std::string& t, size_t h) {
  size_t d = h + 1;
  while (d < t.size() && t[d] >= '0' && t[d] <= '9') ++d;
  return h < t.size() && t[h] == '#' && d > h + 1 && (d == t.size() || !word(t[d]));
}

// GitHub's mention: `@name` at the start of a text node or after a non-word character.
inline std::string live_in_text(const std::string& t, const std::string& repo) {
  for (size_t i = 0; i < t.size(); ++i) {
    bool start = i == 0 || !word(t[i - 1]);
    if (t[i] == '@' && start && i + 1 < t.size() && word(t[i + 1]) && t[i + 1] != '_')
      return "live mention: " + t.substr(i, 20);
    if (!start || (!(t[i] >= 'a' && t[i] <= 'z') && !(t[i] >= 'A' && t[i] <= 'Z'))) continue;
    size_t w = i;
    while (w < t.size() && word(t[w])) ++w;
    std::string kw;
    for (size_t x = i; x < w; ++x) kw += low(t[x]);
    size_t r = w;
    bool closing = kw == "close" || kw == "closes" || kw == "closed" || kw == "fix" ||
                   kw == "fixes" || kw == "fixed" || kw == "resolve" || kw == "resolves" ||
                   kw == "resolved";
    if (closing) {
      if (r < t.size() && t[r] == ':') ++r;
      size_t sp = r;
      while (r < t.size() && (t[r] == ' ' || t[r] == '\t' || t[r] == '\n')) ++r;
      if (r > w && issue_number(t, r) && (sp < r || t[w] == ':'))
        return "live closing keyword: " + t.substr(i, 30);
    }
    // owner/repo#N of another repository (or any, after a closing keyword)
    size_t e = i;
    while (e < t.size() && (word(t[e]) || t[e] == '-' || t[e] == '.')) ++e;
    if (e < t.size() && t[e] == '/') {
      size_t f = e + 1;
      while (f < t.size() && (word(t[f]) || t[f] == '-' || t[f] == '.')) ++f;
      if (f > e + 1 && issue_number(t, f)) {
        std::string ref;
        for (size_t x = i; x < f; ++x) ref += low(t[x]);
        if (ref != repo) return "live reference to another repository: " + t.substr(i, 30);
      }
    }
  }
  return "";
}

inline std::string attr(std::string_view tag, std::string_view name) {
  size_t p = tag.find(std::string(" ") + std::string(name) + "=\"");
  if (p == std::string_view::npos) return "";
  p += name.size() + 3;
  return decode(tag.substr(p, tag.find('"', p) - p));
}

inline std::string bad_url(const std::string& u, const std::vector<std::string>& allowed,
                           bool mail_ok) {
  size_t colon = u.find(':');
  size_t first = u.find_first_of("/?#");
  if (u.rfind("//", 0) == 0) return "protocol-relative link: " + u;
  if (colon == std::string::npos || (first != std::string::npos && first < colon)) return "";
  std::string scheme;
  for (size_t i = 0; i < colon; ++i) {
    char c = low(u[i]);
    bool ok = (c >= 'a' && c <= 'z') ||
              (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '.' || c == '-'));
    if (!ok) return "";  // not a scheme: a browser reads a relative URL
    scheme += c;
  }
  if (scheme == "mailto" && mail_ok) return "";
  // GitHub's HTML filter drops hrefs of schemes it does not know; these it keeps or a browser
  // would act on.
  bool known = false;
  for (const char* k : {"http", "https", "mailto", "javascript", "data", "vbscript", "file", "tel",
                        "sms", "ftp", "ws", "wss", "blob", "intent", "xmpp", "irc"})
    known = known || scheme == k;
  if (!known) return "";
  // `https:x` on an https page is a path on the same host
  if (scheme == "https" && u.compare(colon, 3, "://") != 0 && u.compare(colon, 2, ":\\") != 0)
    return "";
  if (scheme != "https" || u.compare(colon, 3, "://") != 0) return "link scheme: " + u;
  std::string rest = u.substr(colon + 3);
  std::string host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.find('@') != std::string::npos) return "link with user info: " + u;
  host = host.substr(0, host.find(':'));
  for (char& c : host) c = low(c);
  // A host no resolver accepts (`github.com]`) leads nowhere; `%` may decode to a dot.
  if (host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-%") != std::string::npos)
    return "";
  // Nor does one that decodes to a code point the URL standard forbids in a host (`%5D` is
  // `]`): every browser refuses such a URL. A quote (`%22`) is not one of them.
  std::string decoded;
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i] == '%' && i + 2 < host.size() &&
        std::isxdigit(static_cast<unsigned char>(host[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(host[i + 2]))) {
      decoded += char(std::strtol(host.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else {
      decoded += host[i];
    }
  }
  if (decoded.find_first_of(std::string("\0\t\n\r #/:<>?@[\\]^|%\x7f", 19)) != std::string::npos)
    return "";
  if (!host_allowed(host, allowed)) return "link to another host: " + u;
  return "";
}

}  // namespace detail

inline std::string rendered_problem(std::string_view md, const std::vector<std::string>& allowed,
                                    const std::string& repo) {
  std::string html = render_gfm(md);
  int inert = 0;  // open <code>, <pre>, <a>
  // An HTML tokenizer opens a tag only at `<` before a letter, `/` or `!`.
  auto tag_at = [&](size_t i) {
    char c = i + 1 < html.size() ? html[i + 1] : 0;
    return html[i] == '<' &&
           ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '!' || c == '?');
  };
  for (size_t i = 0; i < html.size();) {
    if (!tag_at(i)) {
      size_t next = i + 1;
      while (next < html.size() && !tag_at(next)) ++next;
      if (inert == 0) {
        std::string why = detail::live_in_text(detail::decode(html.substr(i, next - i)), repo);
        if (!why.empty()) return why;
      }
      i = next;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) return "an HTML comment: " + html.substr(i, 40);
    size_t gt = html.find('>', i);
    if (gt == std::string::npos) break;
    std::string tag = html.substr(i, gt - i + 1);
    std::string name;
    for (size_t j = i + 1 + (html[i + 1] == '/'); j < gt && detail::word(html[j]); ++j)
      name += detail::low(html[j]);
    bool closing = html[i + 1] == '/';
    if (name == "code" || name == "pre" || name == "a") inert += closing ? -1 : 1;
    if (inert < 0) inert = 0;
    if (!closing && name == "a") {
      std::string href = detail::attr(tag, "href");
      bool mail = href.rfind("mailto:", 0) == 0 && href.find('@') != std::string::npos;
      std::string why = detail::bad_url(href, allowed, mail);
      if (!why.empty()) return why;
    }
    if (!closing && name == "img") {
      std::string why = detail::bad_url(detail::attr(tag, "src"), allowed, false);
      if (!why.empty()) return why;
      if (!detail::attr(tag, "alt").empty()) return "hidden alt text: " + tag;
    }
    if (!closing && (name == "a" || name == "img") && tag.find(" title=\"") != std::string::npos)
      return "hidden title: " + tag;
    i = gt + 1;
  }
  return "";
}

}  // namespace aw::fuzz
