#include "proxy/inference_wire.h"

#include <fmt/format.h>
#include <strings.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "base/json_write.h"

namespace aw {
namespace {

bool is_one_of(std::string_view name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name.size() == std::strlen(n) && strncasecmp(name.data(), n, name.size()) == 0) return true;
  return false;
}

const char* anthropic_type(int status) {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    default:
      return "api_error";
  }
}

const char* openai_type(int status) {
  return status >= 500 ? "server_error" : "invalid_request_error";
}

const char* openai_code(int status) {
  switch (status) {
    case 401:
      return "invalid_api_key";
    case 403:
      return "awaywork_budget_spent";
    default:
      return "awaywork_proxy";
  }
}

}  // namespace

std::string provider_error_body(const std::string& api, int status, const std::string& message) {
  nlohmann::json j;
  if (api == "openai")
    j = {{"error",
          {{"message", message},
           {"type", openai_type(status)},
           {"code", openai_code(status)},
           {"param", nullptr}}}};
  else
    j = {{"type", "error"}, {"error", {{"type", anthropic_type(status)}, {"message", message}}}};
  return json_text(j);
}

bool path_allowed(const std::vector<std::string>& allow, std::string_view path) {
  if (allow.empty()) return true;
  // "/v1/models/../files" would match the prefix and be normalized upstream: no dot segments,
  // no encoded dots or slashes, no backslashes.
  std::string padded = std::string(path) + "/";
  for (const char* bad : {"/./", "/../", "%2e", "%2E", "%2f", "%2F", "%5c", "%5C", "\\"})
    if (padded.find(bad) != std::string::npos) return false;
  for (const auto& a : allow) {
    if (!a.empty() && a.back() == '*') {
      if (path.substr(0, a.size() - 1) == std::string_view(a).substr(0, a.size() - 1)) return true;
    } else if (path == a) {
      return true;
    }
  }
  return false;
}

bool drop_request_header(std::string_view name) {
  return is_one_of(
      name, {"x-api-key", "authorization", "cookie", "proxy-authorization", "proxy-connection",
             "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade", "expect",
             "host", "content-length", "accept-encoding"});
}

bool drop_response_header(std::string_view name) {
  return is_one_of(
      name, {"connection", "keep-alive", "proxy-connection", "proxy-authenticate", "te", "trailer",
             "transfer-encoding", "upgrade", "content-length", "set-cookie"});
}

std::pair<std::string, std::string> credential_header(const std::string& api,
                                                      const std::string& credential) {
  if (api == "openai" || credential.rfind("sk-ant-oat", 0) == 0)
    return {"authorization", "Bearer " + credential};
  return {"x-api-key", credential};
}

std::string inference_log_line(const InferenceLogEntry& e) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  nlohmann::json j = {{"time", when},
                      {"method", e.method},
                      {"path", e.path},
                      {"status", e.status},
                      {"upstream_status", e.upstream_status},
                      {"tokens_in", e.tokens_in},
                      {"tokens_out", e.tokens_out},
                      {"refused", e.refused}};
  return json_text(j);
}

}  // namespace aw
