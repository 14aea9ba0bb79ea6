// A FAKE of the model providers' HTTP APIs (Anthropic Messages, OpenAI Responses), for the
// inference proxy's tests only: a small Boost.Beast server (TLS with a certificate the test makes,
// or plain HTTP) that records every request it gets and answers in the providers' shapes:
//   POST .../v1/messages   stream:true -> Anthropic SSE (message_start usage input 25,
//                          message_delta usage output 17), else JSON (usage 11 in / 7 out)
//   POST .../v1/responses  stream:true -> OpenAI Responses SSE (response.completed usage 40 in /
//                          9 out), else JSON (usage 12 in / 5 out)
//   anything else          404 JSON
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

class FakeModelUpstream {
 public:
  struct Seen {
    std::string method, target, head, body;  // head: the request line and headers as received
  };
  // Plain HTTP when cert is empty.
  explicit FakeModelUpstream(TestCert cert = {});
  ~FakeModelUpstream();
  uint16_t port() const { return port_; }
  std::vector<Seen> seen();
  void release();  // let a held stream send its last event
  bool sent_last() const { return sent_last_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<bool> sent_last_{false};
};

}  // namespace aw::test
