// Multi-pattern search in one pass: every literal and every token prefix is reduced to its first
// four bytes; a 2^18-bit filter over those four-byte windows rejects almost every position with
// one load, one multiply and one bit test. Only windows that pass are checked exactly.
#include "check/redact.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>

namespace aw {
namespace {

constexpr int kBits = 18;
constexpr size_t kMaxToken = 4096;    // longer tokens are redacted up to here
constexpr size_t kMaxPem = 64 << 10;  // a PEM block without END is redacted up to here
constexpr std::string_view kRedacted = "[REDACTED]";

enum class Outcome { no, yes, more };
struct Match {
  Outcome outcome = Outcome::no;
  size_t length = 0;
};

inline uint32_t load4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}
inline uint16_t load2(const char* p) {
  uint16_t w;
  std::memcpy(&w, p, 2);
  return w;
}
inline uint32_t hash4(uint32_t w) {
  return (w * 0x9E3779B1u) >> (32 - kBits);
}

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool alnum_us(char c) {
  return alnum(c) || c == '_';
}
bool alnum_us_dash(char c) {
  return alnum(c) || c == '_' || c == '-';
}
bool alnum_dash(char c) {
  return alnum(c) || c == '-';
}
bool upper_digit(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string json_escaped(std::string_view s) {
  std::string o;
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '/':
        o += "\\/";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\r':
        o += "\\r";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += char(c);
        }
    }
  }
  return o;
}

}  // namespace

class SecretMatcher {
 public:
  // Member types, not file-local ones: SecretMatcher is declared in redact.h, so its fields may
  // not have types from an anonymous namespace (GCC's -Wsubobject-linkage, an error when this
  // file is compiled inside a unity build's source).
  enum class Kind : uint8_t {
    literal,
    github,
    github_pat,
    anthropic,
    openai,
    aws,
    gitlab,
    slack,
    jwt,
    pem
  };
  struct Candidate {
    Kind kind;
    uint32_t literal = 0;  // index into literals when kind == literal
  };

  struct Span {
    size_t begin, end;
    Kind kind;
  };
  struct Scan {
    std::vector<Span> spans;  // merged, in order
    size_t stop;              // positions from here on were not decided
    bool open = false;        // a match may go on past the input (stop is where it begins)
  };

  explicit SecretMatcher(const std::vector<std::string>& literals)
      : pairs_(1u << 16, 0), bits_((1u << kBits) / 64) {
    for (const auto& l : literals) {
      if (l.size() < Redactor::kMinLiteral) continue;
      add_literal(l);
      // The same value inside JSON text (transcripts are JSON lines) and with "/" escaped.
      std::string e = json_escaped(l);
      if (e != l) add_literal(e);
      std::string e2 = e;
      for (size_t p = 0; (p = e2.find("\\/", p)) != std::string::npos;) e2.erase(p, 1);
      if (e2 != l && e2 != e) add_literal(e2);
    }
    for (const char* p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) add(p, {Kind::github});
    add("gith", {Kind::github_pat});
    add("AKIA", {Kind::aws});
    add("glpa", {Kind::gitlab});
    for (char c : std::string_view("abprs")) add(std::string("xox") + c, {Kind::slack});
    add("----", {Kind::pem});
    const std::string_view cls = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    for (char c : cls) {
      add(std::string("sk-") + c, {c == 'a' ? Kind::anthropic : Kind::openai});
      if (c == 'a') add(std::string("sk-") + c, {Kind::openai});
      add(std::string("eyJ") + c, {Kind::jwt});
    }
  }

  Scan scan(std::string_view buf, bool final, char pp, char p) const {
    Scan r{{}, 0};
    const char* b = buf.data();
    size_t n = buf.size();
    size_t i = 0;
    bool stopped = false;
    const uint8_t* pairs = pairs_.data();
    for (; i + 4 <= n; ++i) {
      // Four positions at a time. Level 1: is any two-byte window the start of a pattern?
      // Level 2, only then and without branches: which of the four windows' four bytes are?
      while (i + 7 <= n) {
        unsigned a0 = pairs[load2(b + i)], a1 = pairs[load2(b + i + 1)],
                 a2 = pairs[load2(b + i + 2)], a3 = pairs[load2(b + i + 3)];
        if ((a0 | a1 | a2 | a3) == 0) {
          i += 4;
          continue;
        }
        unsigned m = (a0 & level2(b + i)) | (a1 & level2(b + i + 1)) << 1 |
                     (a2 & level2(b + i + 2)) << 2 | (a3 & level2(b + i + 3)) << 3;
        if (m == 0) {
          i += 4;
          continue;
        }
        i += size_t(__builtin_ctz(m));
        break;
      }
      if (i + 4 > n) break;
      if (!pairs[load2(b + i)] || !level2(b + i)) continue;
      auto it = cands_.find(load4(b + i));
      if (it == cands_.end()) continue;
      size_t best = 0;
      Kind kind = Kind::literal;
      bool more = false;
      char p1 = i >= 1 ? b[i - 1] : p, p2 = i >= 2 ? b[i - 2] : (i == 1 ? p : pp);
      for (const auto& c : it->second) {
        Match m = match(c, buf, i, final, p2, p1);
        if (m.outcome == Outcome::more) more = true;
        if (m.outcome == Outcome::yes && m.length > best) best = m.length, kind = c.kind;
      }
      if (more && !final) {
        stopped = true;
        break;
      }
      if (best == 0) continue;
      if (!r.spans.empty() && i < r.spans.back().end)
        r.spans.back().end = std::max(r.spans.back().end, i + best);
      else
        r.spans.push_back({i, i + best, kind});
    }
    r.stop = stopped ? i : (final ? n : (n >= 3 ? n - 3 : 0));
    if (!stopped && !final) r.stop = std::min(r.stop, i);
    r.open = stopped;
    return r;
  }

  // Is `head` (shorter than four bytes: what a window cannot decide) how some pattern begins,
  // or, with literal_only, how one of the literals (a secret's own bytes) begins?
  bool could_begin(std::string_view head, bool literal_only) const {
    for (const auto& [w, cands] : cands_) {
      char four[4];
      std::memcpy(four, &w, 4);
      if (std::string_view(four, 4).substr(0, head.size()) != head) continue;
      if (!literal_only) return true;
      for (const auto& c : cands)
        if (c.kind == Kind::literal) return true;
    }
    return false;
  }

 private:
  unsigned level2(const char* p) const {
    uint32_t h = hash4(load4(p));
    return unsigned((bits_[h >> 6] >> (h & 63)) & 1);
  }

  std::vector<uint8_t> pairs_;  // 64 KiB: 1 where a pattern starts with these two bytes
  std::vector<uint64_t> bits_;
  std::unordered_map<uint32_t, std::vector<Candidate>> cands_;
  std::vector<std::string> literals_;

  void add(const std::string& prefix4, Candidate c) {
    uint32_t w = load4(prefix4.data());
    pairs_[load2(prefix4.data())] = 1;
    uint32_t h = hash4(w);
    bits_[h >> 6] |= uint64_t(1) << (h & 63);
    auto& v = cands_[w];
    for (const auto& x : v)
      if (x.kind == c.kind && x.literal == c.literal) return;
    v.push_back(c);
  }
  void add_literal(const std::string& l) {
    if (std::find(literals_.begin(), literals_.end(), l) != literals_.end()) return;
    literals_.push_back(l);
    add(l.substr(0, 4), {Kind::literal, uint32_t(literals_.size() - 1)});
  }

  // Count class characters from `from`, at most max; `more` when the buffer ended first.
  template <class F>
  static size_t run_of(std::string_view b, size_t from, size_t max, F cls, bool final, bool& more) {
    size_t k = from;
    while (k < b.size() && k - from < max && cls(b[k])) ++k;
    more = !final && k == b.size() && k - from < max;
    return k - from;
  }

  static Match token(std::string_view b, size_t i, size_t prefix, size_t min, bool final,
                     bool (*cls)(char)) {
    if (i + prefix > b.size()) return {final ? Outcome::no : Outcome::more, 0};
    bool more;
    size_t len = run_of(b, i + prefix, kMaxToken, cls, final, more);
    if (more) return {Outcome::more, 0};
    if (len < min) return {};
    return {Outcome::yes, prefix + len};
  }

  static bool starts(std::string_view b, size_t i, std::string_view p, bool final, Outcome& o) {
    size_t avail = std::min(p.size(), b.size() - i);
    if (b.compare(i, avail, p.substr(0, avail)) != 0) {
      o = Outcome::no;
      return false;
    }
    if (avail < p.size()) {
      o = final ? Outcome::no : Outcome::more;
      return false;
    }
    return true;
  }

  // Two-byte look-behind: a generic prefix inside a word is a word, unless JSON-escaped (\n).
  static bool boundary(char p2, char p1) { return !alnum_us_dash(p1) || p2 == '\\'; }

  Match match(const Candidate& c, std::string_view b, size_t i, bool final, char p2,
              char p1) const {
    Outcome o;
    switch (c.kind) {
      case Kind::literal: {
        const auto& l = literals_[c.literal];
        return starts(b, i, l, final, o) ? Match{Outcome::yes, l.size()} : Match{o, 0};
      }
      case Kind::github:
        return token(b, i, 4, 20, final, alnum);
      case Kind::github_pat:
        if (!starts(b, i, "github_pat_", final, o)) return {o, 0};
        return token(b, i, 11, 20, final, alnum_us);
      case Kind::anthropic:
        if (!starts(b, i, "sk-ant-", final, o)) return {o, 0};
        return token(b, i, 7, 20, final, alnum_us_dash);
      case Kind::openai: {
        if (!boundary(p2, p1)) return {};
        Match m = token(b, i, 3, 20, final, alnum_us_dash);
        if (m.outcome != Outcome::yes) return m;
        std::string_view body = b.substr(i + 3, m.length - 3);
        bool digit = body.find_first_of("0123456789") != body.npos;
        bool letter = std::any_of(body.begin(), body.end(), [](char ch) {
          return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
        });
        return digit && letter ? m : Match{};
      }
      case Kind::aws: {
        if (i + 20 > b.size()) return {final ? Outcome::no : Outcome::more, 0};
        for (size_t k = i + 4; k < i + 20; ++k)
          if (!upper_digit(b[k])) return {};
        return {Outcome::yes, 20};
      }
      case Kind::gitlab:
        if (!starts(b, i, "glpat-", final, o)) return {o, 0};
        return token(b, i, 6, 20, final, alnum_us_dash);
      case Kind::slack:
        if (!starts(b, i, "xox", final, o)) return {o, 0};
        if (i + 5 > b.size()) return {final ? Outcome::no : Outcome::more, 0};
        if (b[i + 4] != '-') return {};
        return token(b, i, 5, 10, final, alnum_dash);
      case Kind::jwt:
        return jwt(b, i, final, p2, p1);
      case Kind::pem:
        return pem(b, i, final);
    }
    return {};
  }

  static Match jwt(std::string_view b, size_t i, bool final, char p2, char p1) {
    if (!boundary(p2, p1)) return {};
    size_t k = i;
    size_t min[3] = {10, 2, 0};
    for (int part = 0; part < 3; ++part) {
      bool more;
      size_t len = run_of(b, k, kMaxToken, alnum_us_dash, final, more);
      if (more) return {Outcome::more, 0};
      if (len < min[part]) return {};
      k += len;
      if (part == 2) break;
      if (k >= b.size()) return {final ? Outcome::no : Outcome::more, 0};
      if (b[k] != '.') return {};
      ++k;
    }
    return {Outcome::yes, k - i};
  }

  static Match pem(std::string_view b, size_t i, bool final) {
    Outcome o;
    if (!starts(b, i, "-----BEGIN ", final, o)) return {o, 0};
    size_t k = i + 11;
    size_t line_end = b.find("-----", k);
    if (line_end == std::string_view::npos || line_end - k > 60)
      return {(!final && b.size() - k < 66) ? Outcome::more : Outcome::no, 0};
    std::string_view label = b.substr(k, line_end - k);
    if (label.size() < 11 || label.substr(label.size() - 11) != "PRIVATE KEY") return {};
    size_t end = b.find("-----END ", line_end + 5);
    if (end != std::string_view::npos && end - i <= kMaxPem) {
      size_t close = b.find("-----", end + 9);
      if (close != std::string_view::npos && close - i <= kMaxPem)
        return {Outcome::yes, close + 5 - i};
    }
    // No END yet: wait for it while the block could still end within the cap, else redact the
    // rest of what we have (over-redacting is the safe mistake).
    if (!final && b.size() - i < kMaxPem) return {Outcome::more, 0};
    return {Outcome::yes, std::min(b.size() - i, kMaxPem)};
  }
};

Redactor::Redactor(std::vector<std::string> literals)
    : matcher_(std::make_shared<const SecretMatcher>(literals)) {}
Redactor::~Redactor() = default;
Redactor::Redactor(Redactor&&) noexcept = default;
Redactor& Redactor::operator=(Redactor&&) noexcept = default;

std::string Redactor::feed(std::string_view chunk) {
  pending_.append(chunk);
  // A held-back tail (an open PEM block, a token at the end) is rescanned only once the input
  // has doubled, so tiny chunks cost amortized linear time, not quadratic.
  if (pending_.size() < hold_until_) return {};
  std::string out = run(false, false);
  hold_until_ = pending_.size() > 256 ? 2 * pending_.size() : 0;
  return out;
}

std::string Redactor::settle() {
  // Held past hold_until_ means a match in progress spans the tail: nothing more to give.
  if (pending_.size() < hold_until_) return {};
  std::string out = run(false, true);
  hold_until_ = pending_.size() > 256 ? 2 * pending_.size() : 0;
  return out;
}

std::string Redactor::finish() {
  return run(true, false);
}

// Plain bytes [from, to) of pending_, less those settle() already gave out.
void Redactor::plain(std::string& out, size_t from, size_t to) const {
  from = std::max(from, shown_);
  if (to > from) out.append(pending_, from, to - from);
}

// The first n bytes of pending_ are decided and written: drop them, keeping the two raw bytes
// before what is left for the scan's look-behind.
void Redactor::consume(size_t n) {
  if (n >= 2)
    prev_[0] = pending_[n - 2], prev_[1] = pending_[n - 1];
  else if (n == 1)
    prev_[0] = prev_[1], prev_[1] = pending_[0];
  pending_.erase(0, n);
  shown_ = shown_ > n ? shown_ - n : 0;
}

std::string Redactor::run(bool final, bool settle) {
  auto scan = matcher_->scan(pending_, final, prev_[0], prev_[1]);
  size_t boundary = scan.stop;
  bool open = scan.open;
  // A span reaching past the boundary may still grow: keep it whole for the next round.
  if (!scan.spans.empty() && scan.spans.back().end > boundary) {
    boundary = scan.spans.back().begin;
    scan.spans.pop_back();
    open = true;
  }
  std::string out;
  out.reserve(boundary + 16);
  size_t at = 0;
  for (const auto& s : scan.spans) {
    plain(out, at, s.begin);
    out += kRedacted;
    at = s.end;
  }
  if (boundary > at)
    plain(out, at, boundary);
  else
    boundary = std::max(boundary, at);
  consume(boundary);
  if (!settle || open || final) return out;
  // The input paused and what is left is the tail no window covered (fewer than four bytes).
  // Its bytes up to the first that could begin a pattern or a literal are decided: written and
  // dropped. From there on, bytes that could begin only a pattern ("g" of ghp_, "sk-", "eyJ":
  // public constants, never secret) are written but kept for the scan, so the token they begin
  // is still redacted when its rest arrives (the transcript then reads "sk-[REDACTED]"). From the
  // first byte that could begin a literal on, nothing is written: a secret's own bytes never
  // show before it is whole, however long the pause.
  size_t k = 0;
  while (k < pending_.size() && !matcher_->could_begin(std::string_view(pending_).substr(k), false))
    ++k;
  plain(out, 0, k);
  consume(k);
  size_t show = 0;
  while (show < pending_.size() &&
         !matcher_->could_begin(std::string_view(pending_).substr(show), true))
    ++show;
  plain(out, 0, show);
  shown_ = std::max(shown_, show);
  return out;
}

std::string redact_all(std::string_view text, const std::vector<std::string>& literals) {
  Redactor r(literals);
  std::string out = r.feed(text);
  out += r.finish();
  return out;
}

std::vector<SecretHit> find_secrets(std::string_view text,
                                    const std::vector<std::string>& literals) {
  static constexpr const char* kNames[] = {"literal", "github", "github_pat", "anthropic", "openai",
                                           "aws",     "gitlab", "slack",      "jwt",       "pem"};
  SecretMatcher m(literals);
  std::vector<SecretHit> out;
  for (const auto& s : m.scan(text, true, 0, 0).spans)
    out.push_back({s.begin, s.end - s.begin, kNames[int(s.kind)]});
  return out;
}

}  // namespace aw
