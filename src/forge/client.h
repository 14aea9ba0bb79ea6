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

// One answer: any status the caller wants to judge itself (call()).
struct ApiReply {
  int status = 0;
  nlohmann::json body;  // null when empty or not JSON
  std::map<std::string, std::string> headers;
};

// ---- shared by GitHub's client and GitLab's (gitlab/client.cc) ------------------------------

// A header's decimal number; nullopt when empty, not all digits or longer than 18 digits.
std::optional<int64_t> header_number(const std::string& s);

// An HTTP answer as an ApiReply: its body parsed as JSON, null when empty or not JSON.
ApiReply api_reply(HttpResponse res);

// The body of a 2xx answer; else an Error in the client's words (c.describe).
template <class Client>
Result<nlohmann::json> body_if_ok(const Client& c, const std::string& method,
                                  const std::string& target, Result<ApiReply> r) {
  if (!r) return tl::unexpected<Error>(r.error());
  if (r->status < 200 || r->status > 299) return fail("{}", c.describe(method, target, *r));
  return std::move(r->body);
}

// get_all of either client: GET first and each next page (next(reply, target): its target, ""
// after the last) into one list, at most max_pages; forge ("GitHub") names the forge in Errors.
template <class Client, class Next>
Result<nlohmann::json> all_pages(Client& c, const char* forge, const std::string& first,
                                 int max_pages, Next next) {
  nlohmann::json items = nlohmann::json::array();
  std::string target = first;
  for (int page = 0;; ++page) {
    if (page >= max_pages)
      return fail("{} GET {}: more than {} pages; narrow the query", forge, first, max_pages);
    AW_TRY(ApiReply r, c.call("GET", target));
    if (r.status != 200) return fail("{}", c.describe("GET", target, r));
    if (!r.body.is_array())
      return fail("{} GET {}: expected a list, got {}", forge, target, r.body.type_name());
    for (auto& item : r.body) items.push_back(std::move(item));
    AW_TRY(target,
           with_context(next(r, target), fmt::format("{} GET {}: the next page", forge, first)));
    if (target.empty()) return items;
  }
}

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

  struct Stats {
    int requests = 0, not_modified = 0, retries = 0;
    int64_t waited_ms = 0;
    // The primary rate limit as the last answer gave it (x-ratelimit-*); -1 until one does.
    int64_t rate_remaining = -1, rate_limit = -1, rate_reset = -1;
  };
  const Stats& stats() const { return stats_; }

 private:
  Result<ApiReply> once(const std::string& method, const std::string& target,
                        const std::string& body, const std::string& etag);
  void wait_for_primary_limit();

  GitHubOptions opt_;
  std::string token_;
  std::unique_ptr<Transport> transport_;
  Clock& clock_;
  std::map<std::string, Cached> cache_;  // by target
  std::optional<int64_t> remaining_, reset_;
  Stats stats_;
};

}  // namespace aw
