// The parts of a REST call both forges' clients share (http_call.h).
#include "forge/http_call.h"

#include <algorithm>

namespace aw {

using nlohmann::json;

std::optional<int64_t> header_number(const std::string& s) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(s);
}

ApiReply api_reply(HttpResponse res) {
  ApiReply r;
  r.status = res.status;
  r.headers = std::move(res.headers);
  if (!res.body.empty()) r.body = json::parse(res.body, nullptr, false);
  if (r.body.is_discarded()) r.body = nullptr;
  return r;
}

void add_body_and_etag(HttpRequest& req, const std::string& body, const std::string& etag) {
  if (!body.empty()) req.headers.emplace_back("Content-Type", "application/json");
  if (!etag.empty()) req.headers.emplace_back("If-None-Match", etag);
}

void RetryWait::retry_after(ApiReply& r) {
  // Both forges document it: wait Retry-After seconds; without it, at least a minute.
  int64_t s = std::min(header_number(r.headers["retry-after"]).value_or(60), max_wait_seconds_);
  ++stats_.retries;
  stats_.waited_ms += s * 1000;
  clock_.sleep(std::chrono::seconds(s));
}

void RetryWait::back_off() {
  ++stats_.retries;
  stats_.waited_ms += backoff_.count();
  clock_.sleep(backoff_);
  backoff_ *= 2;
}

bool RetryWait::until(int64_t reset) {
  int64_t wait = reset - clock_.now_seconds() + 1;
  if (wait <= 0) return false;
  wait = std::min(wait, max_wait_seconds_);
  stats_.waited_ms += wait * 1000;
  clock_.sleep(std::chrono::seconds(wait));
  return true;
}

}  // namespace aw
