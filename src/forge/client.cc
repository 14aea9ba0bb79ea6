// The rules GitHub documents for REST clients ("Best practices for using the REST API", "Rate
// limits for the REST API"): conditional requests, Link pagination, waiting out the primary
// limit, honouring Retry-After on a secondary limit, backing off from 5xx.
#include "forge/client.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/json_read.h"
#include "base/json_write.h"

namespace aw {

using nlohmann::json;

namespace {

#ifndef AW_VERSION
#define AW_VERSION "0"
#endif

std::string message_of(const json& body) {
  if (body.is_object() && body.contains("message") && body["message"].is_string())
    return body["message"].get<std::string>();
  return "";
}

// One error of a 422 without a message: "PullRequest head invalid". A part of the wrong type is
// named instead of thrown on: the answer is the forge's.
std::string error_words(const json& e) {
  JsonRead r(e, "GitHub's error");
  auto resource = r.str_or("resource", ""), field = r.str_or("field", ""),
       code = r.str_or("code", "");
  for (const auto* part : {&resource, &field, &code})
    if (!*part) return part->error().message;
  return fmt::format("{} {} {}", *resource, *field, *code);
}

// A 422's details: "field 'head' invalid", or GitHub's own message per error.
std::string errors_of(const json& body) {
  if (!body.is_object() || !body.contains("errors") || !body["errors"].is_array()) return "";
  std::string out;
  for (const json& e : body["errors"]) {
    std::string one;
    if (e.is_string()) one = e.get<std::string>();
    if (e.is_object() && e.contains("message") && e["message"].is_string())
      one = e["message"].get<std::string>();
    else if (e.is_object())
      one = error_words(e);
    if (!one.empty()) out += (out.empty() ? "" : "; ") + one;
  }
  return out;
}

bool secondary_limit(const ApiReply& r, const std::string& remaining) {
  if (r.status != 403 && r.status != 429) return false;
  if (r.headers.count("retry-after")) return true;
  std::string m = message_of(r.body);
  for (char& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return remaining != "0" && m.find("secondary rate limit") != std::string::npos;
}

bool primary_limit(const ApiReply& r, const std::string& remaining) {
  return (r.status == 403 || r.status == 429) && remaining == "0";
}

}  // namespace

GitHub::GitHub(GitHubOptions opt, std::string token, std::unique_ptr<Transport> transport,
               Clock& clock)
    : opt_(std::move(opt)),
      token_(std::move(token)),
      transport_(std::move(transport)),
      clock_(clock) {}

void GitHub::wait_for_primary_limit(RetryWait& wait) {
  if (!remaining_ || *remaining_ > 0 || !reset_) return;
  if (wait.until(*reset_)) remaining_.reset();
}

Result<ApiReply> GitHub::once(const std::string& method, const std::string& target,
                              const std::string& body, const std::string& etag) {
  HttpRequest req{method, target, {}, body};
  req.headers = {{"Accept", "application/vnd.github+json"},
                 {"X-GitHub-Api-Version", "2022-11-28"},
                 {"User-Agent", "awaywork/" AW_VERSION}};
  if (!token_.empty()) req.headers.emplace_back("Authorization", "Bearer " + token_);
  add_body_and_etag(req, body, etag);
  ++stats_.requests;
  AW_TRY(HttpResponse res,
         with_context(transport_->send(req), fmt::format("GitHub {} {}", method, target)));
  ApiReply r = api_reply(std::move(res));
  if (auto n = header_number(r.headers["x-ratelimit-remaining"]))
    remaining_ = stats_.rate_remaining = *n;
  if (auto n = header_number(r.headers["x-ratelimit-reset"])) reset_ = stats_.rate_reset = *n;
  if (auto n = header_number(r.headers["x-ratelimit-limit"])) stats_.rate_limit = *n;
  return r;
}

Result<ApiReply> GitHub::call(const std::string& method, const std::string& target,
                              const json* body) {
  std::string text = body ? json_text(*body) : "";
  bool is_get = method == "GET";
  std::string etag;
  if (is_get)
    if (auto it = cache_.find(target); it != cache_.end()) etag = it->second.etag;
  RetryWait wait(clock_, stats_, opt_.backoff, opt_.max_wait_seconds);
  for (int attempt = 0;; ++attempt) {
    wait_for_primary_limit(wait);
    AW_TRY(ApiReply r, once(method, target, text, etag));
    std::string remaining =
        r.headers.count("x-ratelimit-remaining") ? r.headers["x-ratelimit-remaining"] : "";
    bool last = attempt >= opt_.max_retries;
    if (r.status == 304 && is_get && !etag.empty()) {
      ++stats_.not_modified;
      r.status = 200;
      r.body = cache_[target].body;
      return r;
    }
    if (primary_limit(r, remaining) && !last) {
      ++stats_.retries;
      continue;  // wait_for_primary_limit sleeps until the reset
    }
    if (secondary_limit(r, remaining) && !last) {
      wait.retry_after(r);  // GitHub: Retry-After seconds; without it, at least a minute
      continue;
    }
    // A write that got a 5xx may have been done; the caller finds out by its marker instead.
    if (r.status >= 500 && is_get && !last) {
      wait.back_off();
      continue;
    }
    if (is_get && r.status == 200 && r.headers.count("etag"))
      cache_[target] = Cached{r.headers["etag"], r.body};
    return r;
  }
}

std::string GitHub::describe(const std::string& method, const std::string& target,
                             const ApiReply& r, const std::string& again) const {
  std::string said = message_of(r.body);
  std::string details = errors_of(r.body);
  std::string what = fmt::format("GitHub {} {}: {}{}{}", method, target, r.status,
                                 said.empty() ? "" : " \"" + said + "\"",
                                 details.empty() ? "" : " (" + details + ")");
  std::string fix;
  bool gh = opt_.credential == "gh";
  switch (r.status) {
    case 401:
      fix = gh ? "the token of your gh login was refused; run `gh auth login` (or `gh auth "
                 "refresh`) and try again"
               : fmt::format(
                     "the token in credential '{}' was refused; store a valid one with "
                     "`awaywork secret set {}`",
                     opt_.credential, opt_.credential);
      break;
    case 403:
    case 429:
      fix = r.headers.count("x-ratelimit-remaining") && r.headers.at("x-ratelimit-remaining") == "0"
                ? "the rate limit is still spent after waiting; try again after its reset" +
                      (again.empty() ? "" : ": " + again)
                : fmt::format(
                      "the token of '{}' may not do this; give it access to the "
                      "repository's contents, issues and pull requests",
                      opt_.credential);
      break;
    case 404:
      fix =
          "no such repository, issue or resource, or the token cannot see it (GitHub answers "
          "404 for what it hides); check the name and the token's access";
      break;
    case 422:
      fix = "GitHub refused the request's content";
      break;
    default:
      fix = r.status >= 500 ? "GitHub failed (a server error); try again later" +
                                  (again.empty() ? "" : ": " + again)
                            : "unexpected answer";
  }
  return what + "; " + fix;
}

std::optional<GitHub::Cached> GitHub::cached(const std::string& target) const {
  auto it = cache_.find(target);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

Result<json> GitHub::get(const std::string& target) {
  return body_if_ok(*this, "GET", target, call("GET", target));
}

Result<json> GitHub::post(const std::string& target, const json& body) {
  return body_if_ok(*this, "POST", target, call("POST", target, &body));
}

Result<json> GitHub::patch(const std::string& target, const json& body) {
  return body_if_ok(*this, "PATCH", target, call("PATCH", target, &body));
}

Result<json> GitHub::get_all(const std::string& first) {
  return all_pages(*this, "GitHub", first, opt_.max_pages,
                   [this](ApiReply& r, const std::string&) -> Result<std::string> {
                     auto next = link_next(r.headers["link"]);
                     if (!next) return std::string();  // the last page
                     return target_under(*next, opt_.api_url);
                   });
}

}  // namespace aw
