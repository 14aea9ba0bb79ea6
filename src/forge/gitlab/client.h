// awaywork's GitLab REST client (API v4: gitlab.com and self-managed). Every request carries the
// token in PRIVATE-TOKEN and awaywork's User-Agent; GETs are conditional (If-None-Match: GitLab
// answers 304 to its own weak ETags, and the cached body is reused); lists follow the Link
// header's next page, else X-Next-Page; a 429 is retried after Retry-After, a RateLimit-Remaining
// of 0 waits until RateLimit-Reset, a GET's 5xx is retried with backoff. Any other failure is an
// Error quoting GitLab's own message (or error) and saying how to fix it.
//
//   GitLab gl(opts, token, std::move(transport), system_clock());
//   AW_TRY(nlohmann::json issue, gl.get("/projects/grp%2Fapp/issues/5"));
//   AW_TRY(nlohmann::json notes, gl.get_all("/projects/grp%2Fapp/issues/5/notes?per_page=100"));
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/result.h"
#include "forge/client.h"  // ApiReply, shared with the GitHub client
#include "forge/http.h"

namespace aw {

struct GitLabOptions {
  std::string api_url = "https://gitlab.com/api/v4";
  std::string credential;  // the credential's name, for messages ("GITLAB_TOKEN" or "glab")
  int max_retries = 4;     // per request, for 429s and a GET's 5xx
  std::chrono::milliseconds backoff{1000};  // first 5xx delay, doubled each time
  int64_t max_wait_seconds = 3600;          // longest wait for a limit's reset or Retry-After
  int max_pages = 100;                      // get_all stops with an Error beyond this
};

// A project's path as one segment of an API target: "grp/sub/app" -> "grp%2Fsub%2Fapp" (GitLab
// takes a URL-encoded full path wherever it takes a project id).
std::string gitlab_project_id(const std::string& path);

class GitLab {
 public:
  GitLab(GitLabOptions opt, std::string token, std::unique_ptr<Transport> transport, Clock& clock);

  // Limits and retries applied; every final status is a reply (an Error only when no answer).
  // raw: also the body as sent (a text answer; then never conditional nor cached).
  Result<ApiReply> call(const std::string& method, const std::string& target,
                        const nlohmann::json* body = nullptr, std::string* raw = nullptr);
  // 2xx or an Error naming GitLab's message and the fix.
  Result<nlohmann::json> get(const std::string& target);
  Result<nlohmann::json> get_all(const std::string& target);  // every page's items, in order
  // get_all by keyset pagination where GitLab offers it: target (its offset form) asked with
  // pagination=keyset (and order_by=id&sort=asc unless it orders already), following the Link
  // header's rel="next" (a cursor: no page is skipped or repeated while the list changes, and
  // deep pages cost GitLab no offset scan). A GitLab without keyset pagination for the list (an
  // older version, an order it cannot keyset) answers 405 (or 400): then target itself, by
  // offset pages, and this client asks that list (by its path) by offset from then on.
  Result<nlohmann::json> get_all_keyset(const std::string& target);
  // target with GitLab's keyset parameters added (as get_all_keyset asks it).
  static std::string keyset_target(const std::string& target);
  // A plain-text answer (a job's trace), as sent: 2xx or an Error as get's. Never cached; a 429
  // and a 5xx are retried as any GET's.
  Result<std::string> get_text(const std::string& target);
  Result<nlohmann::json> post(const std::string& target, const nlohmann::json& body);
  Result<nlohmann::json> put(const std::string& target, const nlohmann::json& body);

  // The error text a reply turns into; `again`: what finishes the work when the failure may pass.
  std::string describe(const std::string& method, const std::string& target, const ApiReply& r,
                       const std::string& again = "") const;

  using Stats = ApiStats;  // the rate fields: RateLimit-*
  const Stats& stats() const { return stats_; }
  const std::string& api_url() const { return opt_.api_url; }

 private:
  Result<ApiReply> once(const std::string& method, const std::string& target,
                        const std::string& body, const std::string& etag,
                        std::string* raw = nullptr);
  void wait_for_reset(RetryWait& wait);

  struct Cached {
    std::string etag;
    nlohmann::json body;
    // The page's Link and X-Next-Page: a 304 need not repeat them, and a list must not end there.
    std::map<std::string, std::string> paging;
  };
  GitLabOptions opt_;
  std::string token_;
  std::unique_ptr<Transport> transport_;
  Clock& clock_;
  std::map<std::string, Cached> cache_;  // by target
  std::set<std::string> offset_only_;     // paths whose keyset request GitLab refused
  Stats stats_;
};

}  // namespace aw
