// What GitHub's client and GitLab's (forge/client.h, forge/gitlab/client.h) do alike around one
// REST call: the reply's shape, the counts, the waits of a retry (Retry-After, a limit's reset, a
// GET's 5xx backoff), a 2xx body or the client's Error, and pagination into one list. Each forge's
// wire details (headers, auth, which status is which limit, error wording) stay in its client.
//
//   RetryWait wait(clock_, stats_, opt_.backoff, opt_.max_wait_seconds);
//   if (r.status == 429 && !last) { wait.retry_after(r); continue; }
//   if (r.status >= 500 && is_get && !last) { wait.back_off(); continue; }
//   return body_if_ok(*this, "GET", target, call("GET", target));
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/result.h"
#include "forge/http.h"

namespace aw {

// One answer: any status the caller wants to judge itself (call()).
struct ApiReply {
  int status = 0;
  nlohmann::json body;  // null when empty or not JSON
  std::map<std::string, std::string> headers;
};

// A client's counts: one shape for watch's beat and the forge usage record, whichever forge
// answered.
struct ApiStats {
  int requests = 0, not_modified = 0, retries = 0;
  int64_t waited_ms = 0;
  // The rate limit as the last answer gave it (x-ratelimit-* or RateLimit-*); -1 until one does.
  int64_t rate_remaining = -1, rate_limit = -1, rate_reset = -1;
};

// A header's decimal number; nullopt when empty, not all digits or longer than 18 digits.
std::optional<int64_t> header_number(const std::string& s);

// An HTTP answer as an ApiReply: its body parsed as JSON, null when empty or not JSON.
ApiReply api_reply(HttpResponse res);

// The headers every JSON call may carry: a body's Content-Type and a conditional GET's
// If-None-Match (each only when given).
void add_body_and_etag(HttpRequest& req, const std::string& body, const std::string& etag);

// The waits of one call() and its retries, each counted into stats (waited_ms; retries for a retry)
// and none longer than max_wait_seconds.
class RetryWait {
 public:
  RetryWait(Clock& clock, ApiStats& stats, std::chrono::milliseconds backoff,
            int64_t max_wait_seconds)
      : clock_(clock), stats_(stats), backoff_(backoff), max_wait_seconds_(max_wait_seconds) {}

  // A rate limit's Retry-After seconds (a minute without one); a retry.
  void retry_after(ApiReply& r);
  // A GET's 5xx: the backoff, doubled for the next; a retry.
  void back_off();
  // Until a limit's reset (epoch seconds) has passed by one second; false (no wait) when it has.
  bool until(int64_t reset);

 private:
  Clock& clock_;
  ApiStats& stats_;
  std::chrono::milliseconds backoff_;
  int64_t max_wait_seconds_;
};

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

}  // namespace aw
