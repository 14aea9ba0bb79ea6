// Tokens are compared with CRYPTO_memcmp against every issued token so that the time a check
// takes says nothing about how much of a guess was right.
#include "proxy/inference_tokens.h"

#include <fmt/format.h>
#include <openssl/crypto.h>

#include <algorithm>

#include "base/random.h"

namespace aw {
namespace {

std::string base64url(const unsigned char* p, size_t n) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    acc = (acc << 8) | p[i];
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += abc[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += abc[(acc << (6 - bits)) & 63];
  return out;
}

}  // namespace

Result<std::string> TokenBook::issue(const std::string& shares_with) {
  unsigned char raw[32];
  AW_CHECK(with_context(random_bytes(raw, sizeof raw), "issuing a run token"));
  std::string token = "awrun-" + base64url(raw, sizeof raw);
  std::lock_guard<std::mutex> l(mu_);
  Entry e;
  if (auto it = tokens_.find(shares_with); !shares_with.empty() && it != tokens_.end())
    e.spent = it->second.spent;
  tokens_[token] = std::move(e);
  return token;
}

void TokenBook::revoke(const std::string& token) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = tokens_.find(token);
  if (it != tokens_.end()) it->second.revoked = true;
}

std::optional<std::string> TokenBook::find_live(const std::vector<std::string>& presented) const {
  std::lock_guard<std::mutex> l(mu_);
  std::optional<std::string> found;
  for (const auto& value : presented)
    for (const auto& [token, entry] : tokens_) {
      bool same = value.size() == token.size() &&
                  CRYPTO_memcmp(value.data(), token.data(), token.size()) == 0;
      if (same && !entry.revoked) found = token;
    }
  return found;
}

std::string TokenBook::admit(const std::string& token, int max_requests, uint64_t budget_tokens) {
  std::lock_guard<std::mutex> l(mu_);
  InferenceUsage& u = tokens_[token].spent->usage;
  std::string why;
  if (max_requests > 0 && u.requests >= max_requests)
    why =
        fmt::format("awaywork: the unit's request budget is spent (max_requests {})", max_requests);
  else if (budget_tokens > 0 &&
           u.input_tokens + u.output_tokens + tokens_[token].spent->reserved >= budget_tokens)
    why = fmt::format("awaywork: the unit's token budget is spent (budget_tokens {}, used {})",
                      budget_tokens, u.input_tokens + u.output_tokens);
  if (why.empty())
    ++u.requests;
  else
    ++u.refused;
  return why;
}

std::string TokenBook::reserve(const std::string& token, uint64_t tokens, uint64_t budget_tokens) {
  std::lock_guard<std::mutex> l(mu_);
  Entry::Spent& e = *tokens_[token].spent;
  uint64_t used = e.usage.input_tokens + e.usage.output_tokens;
  if (budget_tokens == 0 ||
      (tokens <= budget_tokens && used + e.reserved <= budget_tokens - tokens)) {
    e.reserved += tokens;
    return "";
  }
  --e.usage.requests;  // admitted by admit() but never completed upstream
  ++e.usage.refused;
  return fmt::format(
      "awaywork: this request could pass the unit's token budget (budget_tokens {}, used {}, held "
      "by requests in flight {}, this one may use up to {}: its max_tokens plus one per byte of "
      "its body); lower max_tokens or wait for the requests in flight",
      budget_tokens, used, e.reserved, tokens);
}

void TokenBook::settle(const std::string& token, uint64_t reserved, uint64_t in, uint64_t out) {
  std::lock_guard<std::mutex> l(mu_);
  Entry::Spent& e = *tokens_[token].spent;
  e.reserved -= std::min(reserved, e.reserved);
  e.usage.input_tokens += in;
  e.usage.output_tokens += out;
}

InferenceUsage TokenBook::usage(const std::string& token) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = tokens_.find(token);
  return it == tokens_.end() ? InferenceUsage{} : it->second.spent->usage;
}

}  // namespace aw
