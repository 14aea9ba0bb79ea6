// Text sanitizing: the character stage, the order of the markdown passes, and the cap. Each pass
// is a pure function of its input, and the passes run again on their own output until it reads
// the same sanitized again (settled), so the result is deterministic and sanitizing twice gives
// the same text as once (fuzz_requests checks both on arbitrary bytes).
#include "check/sanitize.h"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "check/invisible.h"
#include "check/sanitize_fold.h"
#include "check/sanitize_marked.h"

namespace aw {
namespace sd = sanitize_detail;
namespace {

// Terminal escapes: they can hide text or rewrite what a terminal shows.
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

size_t count_chars(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Byte length of the first `chars` code points of s.
size_t prefix_bytes(std::string_view s, size_t chars) {
  size_t i = 0;
  for (size_t n = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == chars) break;
  }
  return i;
}

// `title`: text GitHub shows as a title (sanitize_title), where HTML and entities are shown as
// text: escaping them would show `&lt;` where the author wrote `<`, and nothing there renders.
std::string passes(std::string_view clean, const SanitizeOptions& o, SanitizeStats& st, bool ticks,
                   bool title) {
  sd::Marked m = sd::mark_structure(clean, o.one_line);
  m = sd::filter_urls(m, o, st);
  if (!title) m = sd::reduce_html(m);
  m = sd::strip_hidden_link_text(m);
  m = sd::neutralize_references(m, o, st, ticks);
  m = sd::neutralize_templates(m);
  return std::move(m.s);
}

// The passes run again on their own output until it reads the same sanitized again. Each pass
// judges the text around what it rewrites (a URL by what follows it to the next white space, a
// code span by the link titles before it), and a later pass, or the URL pass itself, rewrites
// that text: alt text and titles removed, a `\` guard added, a tag's attributes dropped, a URL
// replaced by "(link removed)". So no order of the passes lets one run judge the text that is
// posted; the fixed point does: every pass has judged the final text as it stands. A text that
// needed no change is settled at once; most others in a second run.
constexpr int kSettleRounds = 8;

std::string settled(std::string_view clean, const SanitizeOptions& o, SanitizeStats& st,
                    bool title) {
  std::string out = passes(clean, o, st, false, title);
  if (out == clean) return out;
  for (int round = 1; round < kSettleRounds; ++round) {
    SanitizeStats again;  // the links seen are the first run's; what goes later adds up
    std::string next = passes(clean_unicode(out), o, again, false, title);
    st.mentions += again.mentions;
    st.links_removed += again.links_removed;
    if (next == out) break;
    out = std::move(next);
  }
  return out;
}

// A title wraps in backticks (GitHub shows <code> in a title as text) only when they come out
// as code spans: when the text they went into reads the same sanitized again; else <code>.
std::string markdown_stage(std::string_view clean, const SanitizeOptions& o, SanitizeStats& st,
                           bool title) {
  if (o.one_line) {
    SanitizeStats with = st, again;
    std::string out = passes(clean, o, with, true, title);
    if (passes(clean_unicode(out), o, again, true, title) == out) {
      st = with;
      return out;
    }
  }
  return settled(clean, o, st, title);
}

// The note is inert in every context (no markup, no URL, no mention) and starts its own
// paragraph indented by three spaces, so that it stays inside an unclosed fence that was
// indented up to three and sanitizing the cut text again changes nothing.
std::string cut_note(const SanitizeOptions& o) {
  size_t max_chars = o.max_chars;
  // after a space: glued to the cut text it could extend what it ends (`https:` + `…`)
  if (o.one_line || max_chars <= 256) return " \xE2\x80\xA6";
  return fmt::format("\n\n   \xE2\x80\xA6 (cut by awaywork to fit the limit of {} characters)",
                     max_chars);
}

// Code points of the input before the line that the prefix of `bytes` bytes ends in (before the
// last full line when the prefix ends with a newline): where a cut moves back to.
size_t before_last_line(std::string_view clean, size_t bytes) {
  size_t nl = bytes >= 2 ? clean.rfind('\n', bytes - 2) : std::string_view::npos;
  return nl == std::string_view::npos ? 0 : count_chars(clean.substr(0, nl + 1));
}

// The sanitized text of ever shorter prefixes of the input until it fits with the note: cutting
// the input, not the output, never leaves half of a wrapper we added. The note may change how
// the line it ends parses (after a reference definition's destination, ` …` makes the line an
// ordinary paragraph, which a second pass escapes): a cut that does not read the same sanitized
// again moves back before that line.
std::string capped(const std::string& clean, const SanitizeOptions& o, SanitizeStats& st,
                   bool title) {
  std::string out = markdown_stage(clean, o, st, title);
  if (count_chars(out) <= o.max_chars) return out;
  std::string note = cut_note(o);
  size_t note_chars = count_chars(note);
  if (note_chars > o.max_chars) note.clear(), note_chars = 0;
  size_t keep = o.max_chars - note_chars;
  for (int round = 0;; ++round) {
    SanitizeStats local;
    size_t bytes = prefix_bytes(clean, keep);
    out = markdown_stage(std::string_view(clean).substr(0, bytes), o, local, title);
    size_t n = count_chars(out);
    if (n + note_chars <= o.max_chars || keep == 0) {
      if (keep == 0) out.clear();
      out += note;
      SanitizeStats again;
      if (keep == 0 || markdown_stage(clean_unicode(out), o, again, title) == out) {
        local.truncated = true;
        st = local;
        return out;
      }
      keep = before_last_line(clean, bytes);
      continue;
    }
    size_t target = o.max_chars - note_chars;  // shrink in proportion to the growth
    size_t scaled = size_t(double(keep) * double(target) / double(n));
    size_t step =
        std::max<size_t>({keep > scaled ? keep - scaled : 1, 1, round >= 8 ? keep / 8 : 0});
    keep = step >= keep ? 0 : keep - step;
  }
}

// The `<` of every marker form (as has_marker_form spells it: any case, spacing, full-width
// `＜`) written `‹` (U+2039), in code too: a title made from a task cannot be refused as a request
// is, and GitHub shows a title's code as text that awaywork's readers would match. Not `&lt;`: a
// title shows entities as written, and `‹` still reads as the text's own bracket.
std::string defuse_markers(const std::string& s) {
  std::vector<sd::FoldUnit> u;
  for (const auto& x : sd::fold_units(s))
    if (x.c != ' ' && x.c != '\t' && x.c != '\n') u.push_back(x);
  std::vector<uint32_t> at;  // where each defused `<` starts
  for (size_t p = 0; p + 4 <= u.size(); ++p) {
    if (u[p].c != '<' || u[p + 1].c != '!' || u[p + 2].c != '-' || u[p + 3].c != '-') continue;
    size_t q = p + 4;
    while (q < u.size() && u[q].c == '-') ++q;
    bool marker = q + 8 <= u.size();
    for (size_t k = 0; marker && k < 8; ++k) marker = u[q + k].c == "awaywork"[k];
    if (marker && (at.empty() || at.back() != u[p].b)) at.push_back(u[p].b);
  }
  if (at.empty()) return s;
  std::string out;
  size_t from = 0;
  for (uint32_t b : at) {
    size_t e = b + 1;
    while (e < s.size() && (static_cast<unsigned char>(s[e]) & 0xC0) == 0x80) ++e;
    out.append(s, from, b - from);
    out += "\u2039";
    from = e;
  }
  return out + s.substr(from);
}

}  // namespace

namespace sanitize_detail {

std::vector<bool> escape_starts(const Marked& m) {
  std::vector<bool> e(m.size(), false);
  for (size_t i = 0; i + 1 < m.size(); ++i) {
    if (m.s[i] == '\\' && m.k[i] != kCode && m.k[i + 1] != kCode && is_ascii_punct(m.s[i + 1])) {
      e[i] = true;
      ++i;
    }
  }
  return e;
}

void put_inert(Marked& out, std::string_view inert, char first, uint8_t kind) {
  size_t run = 0;
  while (run < out.size() && out.s[out.size() - 1 - run] == '\\' &&
         out.k[out.size() - 1 - run] != kCode)
    ++run;
  if (run % 2 == 1) {
    if (is_ascii_punct(first)) {  // the backslash escaped what we replace: drop it
      out.s.pop_back();
      out.k.pop_back();
    } else {  // a literal backslash: keep it literal before our `<` or `&`
      out.put('\\', kProse);
    }
  }
  out.put(inert, kind);
}

}  // namespace sanitize_detail

std::string clean_unicode(std::string_view raw) {
  // Removal first, normalization last: NFC cannot create a removed character, but a removal can
  // bring together two combining marks that NFC would then reorder on a second pass.
  std::string in = strip_ansi(raw);
  std::string kept;
  kept.reserve(in.size());
  int32_t prev = -1;  // the last code point kept: a VS15/VS16 stays only right after an emoji
  for (size_t i = 0; i < in.size();) {
    utf8proc_int32_t cp;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(in.data() + i),
                              utf8proc_ssize_t(in.size() - i), &cp);
    if (n <= 0) {
      put_utf8(kept, 0xFFFD);
      prev = 0xFFFD;
      ++i;
      continue;
    }
    if (cp == '\r') {
      bool crlf = i + 1 < in.size() && in[i + 1] == '\n';
      if (!crlf) kept += '\n', prev = '\n';
    } else if (!drop_invisible(prev, cp)) {
      kept.append(in.data() + i, size_t(n));
      prev = cp;
    }
    i += size_t(n);
  }
  auto* nfc = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(kept.c_str()));
  std::string out = nfc ? reinterpret_cast<char*>(nfc) : kept;
  std::free(nfc);
  return out;
}

std::string fold_for_compare(std::string_view in) {
  std::string out;
  for (const auto& u : sd::fold_units(clean_unicode(in))) {
    char c = (u.c == '\t' || u.c == '\n') ? ' ' : u.c;
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool has_marker_form(std::string_view in) {
  auto units = sd::fold_units(clean_unicode(in));
  return sd::marker_opening(units) < units.size();
}

std::string defuse_marker_forms(std::string_view in) {
  if (!has_marker_form(in)) return std::string(in);
  // Judged on the text has_marker_form reads (clean_unicode's), so that what comes out is, by the
  // same detector, free of them. Each round writes one opening `<` (in whatever spelling: full
  // width, small form, `≮`) as "&lt;", which holds no `<`: the rounds end.
  std::string s = clean_unicode(in);
  for (;;) {
    auto units = sd::fold_units(s);
    size_t k = sd::marker_opening(units);
    if (k >= units.size()) return s;
    s.replace(units[k].b, units[k].e - units[k].b, "&lt;");
    s = clean_unicode(s);
  }
}

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

std::string sanitize_text(std::string_view in, const SanitizeOptions& options,
                          SanitizeStats* stats) {
  SanitizeStats local;
  SanitizeStats& st = stats ? *stats : local;
  return capped(clean_unicode(in), options, st, false);
}

std::string sanitize_title(std::string_view in, SanitizeOptions o, SanitizeStats* stats) {
  SanitizeStats local;
  SanitizeStats& st = stats ? *stats : local;
  o.one_line = true;
  // Joined after the character stage (which turns a lone CR into a line end), before the passes:
  // GitHub shows a title on one line, and a break in it could end what the passes saw as a span.
  std::string clean = clean_unicode(in);
  std::replace(clean.begin(), clean.end(), '\n', ' ');
  std::replace(clean.begin(), clean.end(), '\t', ' ');
  // Defused again after the passes, which leave a title's `<` as written: none can join a `<!--`
  // to "awaywork" (they replace text, never drop it), and this keeps invariant 13 if one did.
  return defuse_markers(capped(defuse_markers(clean), o, st, true));
}

std::string task_title(std::string_view task, const SanitizeOptions& o) {
  for (size_t b = 0; b < task.size();) {
    size_t e = std::min(task.find('\n', b), task.size());
    std::string t = sanitize_title(task.substr(b, e - b), o);
    if (t.find_first_not_of(' ') != std::string::npos) return t;
    b = e + 1;
  }
  return "";
}

std::string sanitize_commit_message(std::string_view in, size_t subject_chars) {
  SanitizeOptions o;
  o.commit = true;
  // Line ends as \n only; a marker form is matched across lines (as has_marker_form does), each
  // line then alone.
  std::string clean = defuse_markers(clean_unicode(in));
  std::string out;
  for (size_t b = 0, line = 0;; ++line) {
    size_t e = std::min(clean.find('\n', b), clean.size());
    o.max_chars = line == 0 ? subject_chars : 1000;
    out += sanitize_title(std::string_view(clean).substr(b, e - b), o);
    if (e == clean.size()) break;
    out += '\n';
    b = e + 1;
  }
  return out;
}

std::string sanitize_text(std::string_view in, const std::vector<std::string>& allowed_domains,
                          size_t max_chars, SanitizeStats* stats) {
  SanitizeOptions o;
  o.allowed_domains = allowed_domains;
  o.max_chars = max_chars;
  return sanitize_text(in, o, stats);
}

}  // namespace aw
