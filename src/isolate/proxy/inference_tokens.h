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

#include "isolate/proxy/inference_proxy.h"

namespace aw {

class TokenBook {
 public:
  // shares_with: a token issued before whose counts (and so limits) the new one shares.
  std::string issue(const std::string& shares_with = "");
  void revoke(const std::string& token);
  // The live token among the values the agent presented, compared in constant time.
  std::optional<std::string> find_live(const std::vector<std::string>& presented) const;
  // Count one request against the token's limits: "" = admitted, else why it is refused (the
  // refusal is counted too).
  std::string admit(const std::string& token, int max_requests, uint64_t budget_tokens);
  void add_tokens(const std::string& token, uint64_t in, uint64_t out);
  InferenceUsage usage(const std::string& token) const;

 private:
  struct Entry {
    std::shared_ptr<InferenceUsage> usage = std::make_shared<InferenceUsage>();
    bool revoked = false;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> tokens_;
};

}  // namespace aw
