// One streaming redactor for every recorded byte: the literal values of the unit's secrets (and
// their JSON-escaped forms) plus secret-shaped tokens (GitHub gh[pousr]_ and github_pat_,
// sk-ant-, sk-, AKIA, glpat-, xox[abprs]-, JWTs, PEM private keys). Each match becomes
// "[REDACTED]". Correct across chunk boundaries: feed() holds back the bytes a match could still
// span (at most the longest pattern), finish() flushes them, settle() gives out what a pause in
// the input decides (the live log's quiet tail, issue 25).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace aw {

// A secret found in a text: byte offset and length (for refusing a patch, never for printing).
struct SecretHit {
  size_t offset = 0;
  size_t length = 0;
  std::string kind;  // "literal", "github", "jwt", "pem", ...
};

class SecretMatcher;

class Redactor {
 public:
  // Literals shorter than kMinLiteral bytes are ignored: they would redact ordinary words and
  // are not secrets worth the name.
  static constexpr size_t kMinLiteral = 6;

  explicit Redactor(std::vector<std::string> literals);
  ~Redactor();
  Redactor(Redactor&&) noexcept;
  Redactor& operator=(Redactor&&) noexcept;

  std::string feed(std::string_view chunk);
  // The input paused (the phase printed nothing for a while) and will go on: what feed() gives,
  // plus the held tail but for a secret that may still be arriving. Bytes that could begin one of
  // the literals stay held until the rest shows whether they do. Bytes that could begin only a
  // pattern (a token's public prefix: "gh", "sk-", "eyJ") are written now and kept for the scan:
  // the token they begin is still redacted, after them. So a secret split by a pause of any
  // length is redacted, and a line without its newline ("...a while") is written whole.
  std::string settle();
  std::string finish();

 private:
  std::shared_ptr<const SecretMatcher> matcher_;
  std::string pending_;    // bytes not yet emitted
  size_t hold_until_ = 0;  // skip scanning until pending_ is this long
  char prev_[2] = {0, 0};  // the two bytes emitted just before pending_ (token boundaries)
  size_t shown_ = 0;       // the first bytes of pending_ that settle() already wrote
  std::string run(bool final, bool settle);
  void plain(std::string& out, size_t from, size_t to) const;
  void consume(size_t n);
};

// Redact a whole text at once.
std::string redact_all(std::string_view text, const std::vector<std::string>& literals);

// Every secret in text (literals and patterns), in order of offset, overlapping hits merged.
std::vector<SecretHit> find_secrets(std::string_view text,
                                    const std::vector<std::string>& literals);

}  // namespace aw
