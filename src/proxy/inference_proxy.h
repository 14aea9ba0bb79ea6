// awaywork's inference proxy: the model credential stays outside the isolation. The agent gets a
// per-unit run token and a base URL pointing here (through a sandbox bridge onto 127.0.0.1:PORT
// inside, or a loopback TCP port for unsandboxed phases). The proxy checks the run token, swaps
// in the real credential, forwards only to the configured upstream over verified TLS, streams
// responses (SSE) back unbuffered, streams request bodies through (never held whole), keeps a small
// pool of idle keep-alive connections to the upstream, closes idle agent connections, counts
// requests and reported tokens per run token, and refuses with 403 once a token's max_requests or
// budget is spent (a 429 or 5xx would make the CLIs retry).
//
// How a unit uses it (the lead's side):
//   auto proxy = *InferenceProxy::start({.socket_path = run_dir + "/inference.sock", .api =
//       "anthropic", .upstream = "https://api.anthropic.com", .credential = key, .log = ...});
//   AW_TRY(std::string token, proxy->issue_token());
//   plan.bridges.push_back({proxy->socket_path(), 4180});  // sandboxed: base URL
//   // http://127.0.0.1:4180 inside; unsandboxed: tcp_loopback and http://127.0.0.1:tcp_port()
//   // agent env: ANTHROPIC_API_KEY=token (or OPENAI_API_KEY), ANTHROPIC_BASE_URL=that URL
//   ... when the unit ends: proxy->revoke(token); record proxy->usage(token)
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

struct InferenceProxyOptions {
  std::string socket_path;    // unix socket to listen on (bridged into a sandbox); "" = none
  bool tcp_loopback = false;  // also listen on 127.0.0.1:<ephemeral> (unsandboxed phases)
  std::string api;            // "anthropic" | "openai"
  // "https://api.anthropic.com" or "https://host:port/base"; http:// only to loopback (tests)
  std::string upstream;
  std::string credential;  // the real key; never logged, never in an error
  std::string ca_file;     // extra CA bundle (added to the system store); "" = the system store
  std::map<std::string, std::string> static_hosts;  // host -> IP before DNS (tests)
  // Request paths (without the query) forwarded: exact, or a prefix when the entry ends in '*'
  // ("/v1/messages", "/v1/models*"). Others get 404 in the provider's shape, so the real key
  // cannot reach the account's other endpoints (files, batches). Empty = every path.
  std::vector<std::string> allow_paths;
  int max_requests = 0;        // per token; 0 = unlimited
  uint64_t budget_tokens = 0;  // per token, input+output as the upstream reports; 0 = unlimited
  // Held against budget_tokens while a request is in flight: its max_tokens (or this when the
  // body names none) plus one token per byte of its body; settled to the reported usage after.
  uint64_t default_reserve_tokens = 32768;
  uint64_t max_body_bytes = 64ull << 20;  // a larger request body is cut off and answered 413
  // Idle keep-alive connections to the upstream kept for the next request, and for how long.
  size_t upstream_pool = 4;
  std::chrono::milliseconds upstream_idle{std::chrono::seconds(30)};
  // An agent's connection with no request for client_idle, or whose request head (or a piece
  // of its body) takes longer than header_timeout to arrive, is closed.
  std::chrono::milliseconds client_idle{std::chrono::seconds(60)};
  std::chrono::milliseconds header_timeout{std::chrono::seconds(30)};
  // One JSON object per request (no newline): time, method, path, status, upstream status, tokens
  // in/out, refused rule; no bodies, no headers' values, no query strings.
  std::function<void(const std::string&)> log;
};

struct InferenceUsage {
  int requests = 0;  // forwarded upstream
  int refused = 0;   // refused for this token's limits (403)
  uint64_t input_tokens = 0, output_tokens = 0;
};

class InferenceProxy {
 public:
  static Result<std::unique_ptr<InferenceProxy>> start(InferenceProxyOptions options);
  ~InferenceProxy();  // stops, joins its thread, removes the socket

  // A fresh per-unit run token: "awrun-" + 43 url-safe random characters (256 bits), from
  // getrandom (base/random.h); an error when the kernel gives no randomness.
  Result<std::string> issue_token();
  // A fresh token that counts against the same limits and usage as `shares_with` (a unit's next
  // agent round: one token per round, one budget per unit). An unknown token: a fresh budget.
  Result<std::string> issue_token_sharing(const std::string& shares_with);
  void revoke(const std::string& token);                 // every later request with it: 401
  InferenceUsage usage(const std::string& token) const;  // shared with its round tokens
  uint16_t tcp_port() const;                             // 0 when !tcp_loopback
  const std::string& socket_path() const;

  struct Impl;

 private:
  explicit InferenceProxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace aw
