// The rules GitLab documents for REST clients ("REST API", "Rate limits"): PRIVATE-TOKEN auth,
// offset pagination (Link, X-Next-Page) and keyset pagination (Link rel="next") where a list
// has it, RateLimit-* headers and 429 with Retry-After, ETags.
#include "forge/gitlab/client.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "base/json_write.h"
#include "forge/link.h"

namespace aw {

using nlohmann::json;

#ifndef AW_VERSION
#define AW_VERSION "0"
#endif

namespace {

// GitLab's error bodies: {"message": "404 Project Not Found"}, {"message": ["..."]},
// {"message": {"title": ["can't be blank"]}}, {"error": "title is missing"}, or plain text
// (a 429's "Retry later").
std::string gitlab_message_of(const json& body) {
  if (!body.is_object()) return "";
  std::string out;
  auto add = [&out](const std::string& s) {
    if (!out.empty()) out += "; ";  // not `"; " + s`: GCC 12's -Wrestrict misfires on it at -O2
    out += s;
  };
  for (const char* key : {"message", "error"}) {
    if (!body.contains(key)) continue;
    const json& m = body[key];
    if (m.is_string()) add(m.get<std::string>());
    if (m.is_array())
      for (const json& x : m)
        if (x.is_string()) add(x.get<std::string>());
    if (m.is_object())
      for (const auto& [field, v] : m.items()) {
        std::string said;
        if (v.is_array())
          for (const json& x : v)
            if (x.is_string()) said += (said.empty() ? "" : ", ") + x.get<std::string>();
        if (v.is_string()) said = v.get<std::string>();
        add(field + " " + said);
      }
  }
  return out;
}

}  // namespace

std::string gitlab_project_id(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

GitLab::GitLab(GitLabOptions opt, std::string token, std::unique_ptr<Transport> transport,
               Clock& clock)
    : opt_(std::move(opt)),
      token_(std::move(token)),
      transport_(std::move(transport)),
      clock_(clock) {}

void GitLab::wait_for_reset(RetryWait& wait) {
  if (stats_.rate_remaining != 0 || stats_.rate_reset < 0) return;
  stats_.rate_remaining = -1;  // asked again after the wait
  wait.until(stats_.rate_reset);
}

Result<ApiReply> GitLab::once(const std::string& method, const std::string& target,
                              const std::string& body, const std::string& etag, std::string* raw) {
  HttpRequest req{method, target, {}, body};
  req.headers = {{"Accept", "application/json"}, {"User-Agent", "awaywork/" AW_VERSION}};
  if (!token_.empty()) req.headers.emplace_back("PRIVATE-TOKEN", token_);
  add_body_and_etag(req, body, etag);
  ++stats_.requests;
  AW_TRY(HttpResponse res,
         with_context(transport_->send(req), fmt::format("GitLab {} {}", method, target)));
  if (raw) *raw = res.body;
  ApiReply r = api_reply(std::move(res));
  if (auto n = header_number(r.headers["ratelimit-remaining"])) stats_.rate_remaining = *n;
  if (auto n = header_number(r.headers["ratelimit-reset"])) stats_.rate_reset = *n;
  if (auto n = header_number(r.headers["ratelimit-limit"])) stats_.rate_limit = *n;
  return r;
}

Result<ApiReply> GitLab::call(const std::string& method, const std::string& target,
                              const json* body, std::string* raw) {
  std::string text = body ? json_text(*body) : "";
  bool is_get = method == "GET";
  std::string etag;
  if (is_get && !raw)
    if (auto it = cache_.find(target); it != cache_.end()) etag = it->second.etag;
  RetryWait wait(clock_, stats_, opt_.backoff, opt_.max_wait_seconds);
  for (int attempt = 0;; ++attempt) {
    wait_for_reset(wait);
    AW_TRY(ApiReply r, once(method, target, text, etag, raw));
    bool last = attempt >= opt_.max_retries;
    if (r.status == 304 && is_get && !etag.empty()) {
      ++stats_.not_modified;
      r.status = 200;
      const Cached& c = cache_[target];
      r.body = c.body;
      for (const auto& [k, v] : c.paging) r.headers[k] = v;
      return r;
    }
    if (r.status == 429 && !last) {
      wait.retry_after(r);  // GitLab's Rack::Attack answers 429 with Retry-After
      continue;
    }
    // A write that got a 5xx may have been done; the caller finds out by its marker instead.
    if (r.status >= 500 && is_get && !last) {
      wait.back_off();
      continue;
    }
    if (is_get && !raw && r.status == 200 && r.headers.count("etag")) {
      Cached c{r.headers["etag"], r.body, {}};
      for (const char* k : {"link", "x-next-page"})
        if (auto it = r.headers.find(k); it != r.headers.end()) c.paging[k] = it->second;
      cache_[target] = std::move(c);
    }
    return r;
  }
}

std::string GitLab::describe(const std::string& method, const std::string& target,
                             const ApiReply& r, const std::string& again) const {
  std::string said = gitlab_message_of(r.body);
  std::string what = fmt::format("GitLab {} {}: {}{}", method, target, r.status,
                                 said.empty() ? "" : " \"" + said + "\"");
  std::string fix;
  bool glab = opt_.credential == "glab";
  std::string later = again.empty() ? "" : ": " + again;
  switch (r.status) {
    case 401:
      fix = glab ? "the token of your glab login was refused; run `glab auth login` and try again"
                 : fmt::format(
                       "the token in credential '{0}' was refused (expired or revoked?); store a "
                       "valid one with `awaywork secret set {0}`",
                       opt_.credential);
      break;
    case 403:
      fix = fmt::format(
          "the token of '{}' may not do this; it needs the api and write_repository scopes and "
          "at least the Developer role on the project",
          opt_.credential);
      break;
    case 404:
      fix =
          "no such project, issue or resource, or the token cannot see it (GitLab answers 404 "
          "for what it hides); check the path and the token's access";
      break;
    case 400:
    case 409:
    case 422:
      fix = "GitLab refused the request's content";
      break;
    case 429:
      fix = "the rate limit is still spent after waiting; try again later" + later;
      break;
    default:
      fix = r.status >= 500 ? "GitLab failed (a server error); try again later" + later
                            : "unexpected answer";
  }
  return what + "; " + fix;
}

namespace {

// The next page's target: the Link header's next URL (under the API only), else X-Next-Page
// put in the current target's page= parameter. "" when this page is the last.
Result<std::string> next_page(const ApiReply& r, const std::string& target,
                              const std::string& api_url) {
  auto link = r.headers.find("link");
  if (link != r.headers.end())
    if (auto next = link_next(link->second)) return target_under(*next, api_url);
  auto np = r.headers.find("x-next-page");
  if (np == r.headers.end() || np->second.empty()) return std::string();
  if (np->second.find_first_not_of("0123456789") != std::string::npos)
    return fail("X-Next-Page '{}' is not a page number", np->second);
  std::string path = target.substr(0, target.find('?'));
  std::string query = target.find('?') == std::string::npos ? "" : target.substr(target.find('?'));
  std::string kept;
  for (size_t at = query.empty() ? std::string::npos : 1;
       at != std::string::npos && at < query.size();) {
    size_t amp = query.find('&', at);
    std::string part = query.substr(at, amp == std::string::npos ? amp : amp - at);
    if (!part.starts_with("page=") && !part.empty()) kept += (kept.empty() ? "" : "&") + part;
    at = amp == std::string::npos ? amp : amp + 1;
  }
  return path + "?" + kept + (kept.empty() ? "" : "&") + "page=" + np->second;
}
}  // namespace

Result<json> GitLab::get(const std::string& target) {
  return body_if_ok(*this, "GET", target, call("GET", target));
}

Result<std::string> GitLab::get_text(const std::string& target) {
  std::string raw;
  AW_TRY(ApiReply r, call("GET", target, nullptr, &raw));
  if (r.status >= 200 && r.status <= 299) return raw;
  return fail("{}", describe("GET", target, r));
}

Result<json> GitLab::post(const std::string& target, const json& body) {
  return body_if_ok(*this, "POST", target, call("POST", target, &body));
}

Result<json> GitLab::put(const std::string& target, const json& body) {
  return body_if_ok(*this, "PUT", target, call("PUT", target, &body));
}

Result<json> GitLab::get_all(const std::string& first) {
  return all_pages(*this, "GitLab", first, opt_.max_pages,
                   [this](const ApiReply& r, const std::string& target) {
                     return next_page(r, target, opt_.api_url);
                   });
}

std::string GitLab::keyset_target(const std::string& target) {
  size_t q = target.find('?');
  std::string query = q == std::string::npos ? "" : target.substr(q + 1);
  bool ordered = ("&" + query).find("&order_by=") != std::string::npos;
  std::string add = ordered ? "pagination=keyset" : "pagination=keyset&order_by=id&sort=asc";
  return target + (q == std::string::npos ? "?" : query.empty() ? "" : "&") + add;
}

namespace {

// all_pages's client for a keyset list: its first page already asked (to see whether GitLab
// keysets it) is handed over once instead of asked again, which would cost a counted request.
struct FirstAnswered {
  GitLab& gl;
  std::string first;
  std::optional<ApiReply> reply;
  Result<ApiReply> call(const std::string& method, const std::string& target) {
    if (reply && method == "GET" && target == first) {
      ApiReply r = std::move(*reply);
      reply.reset();
      return r;
    }
    return gl.call(method, target);
  }
  std::string describe(const std::string& method, const std::string& target, const ApiReply& r,
                       const std::string& again = "") const {
    return gl.describe(method, target, r, again);
  }
};

}  // namespace

Result<json> GitLab::get_all_keyset(const std::string& target) {
  std::string path = target.substr(0, target.find('?'));
  if (offset_only_.count(path)) return get_all(target);
  std::string keyset = keyset_target(target);
  AW_TRY(ApiReply first, call("GET", keyset));
  // GitLab's answer where it cannot keyset the request: 405 "Keyset pagination is not yet
  // available for this type of request" (400 from a version that checks the parameters first).
  if (first.status == 405 || first.status == 400) {
    offset_only_.insert(path);
    return get_all(target);
  }
  FirstAnswered once{*this, keyset, std::move(first)};
  return all_pages(once, "GitLab", keyset, opt_.max_pages,
                   [this](const ApiReply& r, const std::string& at) {
                     return next_page(r, at, opt_.api_url);
                   });
}

}  // namespace aw
