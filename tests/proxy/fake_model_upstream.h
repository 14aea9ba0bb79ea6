// A FAKE of the model providers' HTTP APIs (Anthropic Messages, OpenAI Responses), for the
// inference proxy's tests only: a small Boost.Beast server (TLS with a certificate the test makes,
// or plain HTTP) that records every request it gets and answers in the providers' shapes:
//   POST .../v1/messages   stream:true -> Anthropic SSE (message_start usage input 25,
//                          message_delta usage output 17), else JSON (usage 11 in / 7 out)
//   POST .../v1/responses  stream:true -> OpenAI Responses SSE (response.completed usage 40 in /
//                          9 out), else JSON (usage 12 in / 5 out)
//   anything else          404 JSON
// Connections are kept alive as HTTP/1.1 says (closed after a request with "Connection: close"),
// and counted; Options can delay every answer (a round trip to a distant API) and close a kept
// connection after it has been idle for a while (as real APIs' load balancers do).
// A request carrying "x-fake-hold: 1" gets its first SSE event at once and the last one only
// after release() (or after 30 s, so that a proxy that buffers fails the test instead of hanging).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace aw::test {

// A self-signed certificate (its own CA) for the DNS names, made with the openssl CLI in dir.
struct TestCert {
  std::string cert, key;
};
TestCert make_test_cert(const std::string& dir, const std::string& stem,
                        const std::vector<std::string>& dns_names);

struct FakeUpstreamOptions {
  int delay_ms = 0;       // before each answer
  int idle_close_ms = 0;  // close a kept connection idle this long; 0 = never
  // A private registry's behaviour, for the egress proxy's injection tests (outside /v1/...):
  // non-empty auth: a request with "Authorization: <auth>" gets 200 "private ok", any other 401;
  // non-empty redirect_to: a path containing "/redirect" gets 302 with Location: redirect_to.
  std::string auth;
  std::string redirect_to;
};

class FakeModelUpstream {
 public:
  struct Seen {
    std::string method, target, head, body;  // head: the request line and headers as received
    size_t body_size = 0;  // body: all of it up to 1 MiB, else its last 64 KiB or so
  };
  using Options = FakeUpstreamOptions;
  // Plain HTTP when cert is empty.
  explicit FakeModelUpstream(TestCert cert = {}, Options options = {});
  ~FakeModelUpstream();
  uint16_t port() const { return port_; }
  std::vector<Seen> seen();
  void release();  // let a held stream send its last event
  bool sent_last() const { return sent_last_; }
  int connections() const { return connections_; }  // TCP connections accepted so far
  // Bytes of request bodies received so far, complete requests or not.
  size_t body_bytes_in() const { return body_bytes_in_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<bool> sent_last_{false};
  std::atomic<int> connections_{0};
  std::atomic<size_t> body_bytes_in_{0};
};

}  // namespace aw::test
