// The inference proxy's run tokens: issued per unit, checked in constant time, revoked when the
// unit ends, each with its own request and token counts and limits, or sharing them with an
// earlier token (the rounds of one unit).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "proxy/inference_proxy.h"

namespace aw {

class TokenBook {
 public:
  // shares_with: a token issued before whose counts (and so limits) the new one shares. An error
  // when the kernel gives no randomness (base/random.h).
  Result<std::string> issue(const std::string& shares_with = "");
  void revoke(const std::string& token);
  // The live token among the values the agent presented, compared in constant time.
  std::optional<std::string> find_live(const std::vector<std::string>& presented) const;
  // Count one request against the token's limits: "" = admitted, else why it is refused (the
  // refusal is counted too).
  std::string admit(const std::string& token, int max_requests, uint64_t budget_tokens);
  // Hold `tokens` of the budget for a request about to go upstream: "" = held, else why not (the
  // used plus the held would pass budget_tokens; the refusal is counted). Held tokens count as
  // spent for every other request until settle() puts the real usage in their place.
  std::string reserve(const std::string& token, uint64_t tokens, uint64_t budget_tokens);
  void settle(const std::string& token, uint64_t reserved, uint64_t in, uint64_t out);
  InferenceUsage usage(const std::string& token) const;

 private:
  struct Entry {
    // Shared by the tokens of one unit's rounds (issue(shares_with)): one budget, one count.
    struct Spent {
      InferenceUsage usage;
      uint64_t reserved = 0;  // held by requests in flight
    };
    std::shared_ptr<Spent> spent = std::make_shared<Spent>();
    bool revoked = false;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> tokens_;
};

}  // namespace aw
