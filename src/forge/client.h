// awaywork's GitHub REST client (github.com and GHES). Every request carries GitHub's media type,
// API version and awaywork's User-Agent; GETs are conditional (If-None-Match, a 304 reuses the
// cached body); lists follow the Link header; the primary rate limit is waited out until its
// reset, secondary limits (403/429 + Retry-After) are retried after the delay, a GET's 5xx with
// backoff. Any other failure is an Error quoting GitHub's own message and saying how to fix it.
//
//   GitHub gh(opts, token, std::move(transport), system_clock());
//   AW_TRY(nlohmann::json issue, gh.get("/repos/o/r/issues/5"));
//   AW_TRY(nlohmann::json comments, gh.get_all("/repos/o/r/issues/5/comments"));
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "forge/http.h"
#include "forge/http_call.h"  // ApiReply, ApiStats, the waits and pages both forges share
#include "forge/link.h"

namespace aw {

struct GitHubOptions {
  std::string api_url = "https://api.github.com";
  std::string credential;  // the credential's name, for messages ("GH_TOKEN" or "gh")
  int max_retries = 4;     // per request, for secondary limits and a GET's 5xx
  std::chrono::milliseconds backoff{1000};  // first 5xx delay, doubled each time
  int64_t max_wait_seconds = 3600;          // longest wait for a primary limit's reset
  int max_pages = 100;                      // get_all stops with an Error beyond this
};

class GitHub {
 public:
  GitHub(GitHubOptions opt, std::string token, std::unique_ptr<Transport> transport, Clock& clock);

  // Limits and retries applied; every final status is a reply (an Error only when no answer).
  Result<ApiReply> call(const std::string& method, const std::string& target,
                        const nlohmann::json* body = nullptr);
  // 2xx or an Error naming GitHub's message and the fix.
  Result<nlohmann::json> get(const std::string& target);
  Result<nlohmann::json> get_all(const std::string& target);  // every page's items, in order
  Result<nlohmann::json> post(const std::string& target, const nlohmann::json& body);
  Result<nlohmann::json> patch(const std::string& target, const nlohmann::json& body);

  // The error text call() replies turn into (also for callers judging a status themselves).
  // `again`: what finishes the work when the failure may pass (a 5xx, a rate limit still spent),
  // e.g. "`awaywork apply ID` finishes it"; said after "try again later".
  std::string describe(const std::string& method, const std::string& target, const ApiReply& r,
                       const std::string& again = "") const;

  // The ETag cache by target, for a caller that keeps it across restarts (watch's state).
  struct Cached {
    std::string etag;
    nlohmann::json body;
  };
  std::optional<Cached> cached(const std::string& target) const;
  void remember(const std::string& target, Cached c) { cache_[target] = std::move(c); }

  using Stats = ApiStats;  // the rate fields: the primary limit (x-ratelimit-*)
  const Stats& stats() const { return stats_; }

 private:
  Result<ApiReply> once(const std::string& method, const std::string& target,
                        const std::string& body, const std::string& etag);
  void wait_for_primary_limit(RetryWait& wait);

  GitHubOptions opt_;
  std::string token_;
  std::unique_ptr<Transport> transport_;
  Clock& clock_;
  std::map<std::string, Cached> cache_;  // by target
  std::optional<int64_t> remaining_, reset_;
  Stats stats_;
};

}  // namespace aw
