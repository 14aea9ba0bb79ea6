// The fake vendor APIs themselves, spoken to with curl: TLS, streaming and plain JSON answers,
// side requests, and the request log the proxy tests will read.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "fake_server.h"
#include "proc/capture.h"

namespace aw {
namespace {

const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin", "HOME=/nonexistent"};

Captured run(const std::vector<std::string>& argv) {
  return test::run_captured(argv, kEnv);
}

std::vector<nlohmann::json> requests(const std::string& log) {
  return test::logged_requests(log);
}

class Fakes : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-provider-fakes-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    log_ = dir_ + "/requests.jsonl";
  }
  void TearDown() override {
    fake_.stop();
    (void)remove_tree(dir_);
  }
  Captured post(const std::string& url, const std::string& body,
                const std::vector<std::string>& headers, const std::string& cacert = "") {
    std::vector<std::string> argv = {"curl", "-sS", "-N", "-X", "POST",
                                     url,    "-d",  body, "-w", "\nHTTP %{http_code}"};
    if (!cacert.empty()) argv.insert(argv.end(), {"--cacert", cacert});
    for (const auto& h : headers) argv.insert(argv.end(), {"-H", h});
    return run(argv);
  }
  std::string dir_, log_;
  test::FakeServer fake_;
};

TEST_F(Fakes, AnthropicStreamsTheMessageEventsInOrderOverTls) {
  std::string cert = dir_ + "/cert.pem", key = dir_ + "/key.pem";
  ASSERT_EQ(
      run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
           "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"})
          .exit_code,
      0);
  ASSERT_TRUE(fake_.start("fake_anthropic.py", log_, {"--tls", cert, key}));
  std::string url = "https://127.0.0.1:" + std::to_string(fake_.port()) + "/v1/messages";
  auto out = post(
      url,
      R"({"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]})",
      {"x-api-key: sk-ant-api03-FAKE", "content-type: application/json"}, cert);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  size_t at = 0;
  for (const char* ev : {"event: message_start", "event: content_block_start", "event: ping",
                         "event: content_block_delta", "event: content_block_stop",
                         "event: message_delta", "event: message_stop", "HTTP 200"}) {
    size_t found = out.out.find(ev, at);
    ASSERT_NE(found, std::string::npos) << ev << " missing or out of order in\n" << out.out;
    at = found;
  }
  auto reqs = requests(log_);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["headers"]["x-api-key"], "sk-ant-api03-FAKE");
}

TEST_F(Fakes, AnthropicAnswersToolTurnsPlainJsonCountTokensAndLogsUnknownPaths) {
  ASSERT_TRUE(fake_.start("fake_anthropic.py", log_));
  std::string base = fake_.url();
  std::vector<std::string> h = {"x-api-key: k", "content-type: application/json"};
  auto tool = post(
      base + "/v1/messages",
      R"({"model":"m","max_tokens":5,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]})",
      h);
  auto j = nlohmann::json::parse(tool.out.substr(0, tool.out.rfind('\n')));
  EXPECT_EQ(j["stop_reason"], "tool_use");
  EXPECT_EQ(j["content"][1]["name"], "Bash");
  auto count = post(base + "/v1/messages/count_tokens?beta=true", R"({"messages":[]})", h);
  EXPECT_NE(count.out.find("input_tokens"), std::string::npos);
  auto unknown = post(base + "/v1/files", "{}", h);
  EXPECT_NE(unknown.out.find("HTTP 404"), std::string::npos);
  auto reqs = requests(log_);
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[1]["note"], "count_tokens");
  EXPECT_EQ(reqs[2]["note"], "unknown");
}

TEST_F(Fakes, OpenaiStreamsResponseEventsAndLogsTheBearerKey) {
  ASSERT_TRUE(fake_.start("fake_openai.py", log_));
  auto out = post(
      fake_.url() + "/v1/responses",
      R"({"model":"m","stream":true,"input":[{"type":"message","role":"user","content":"go"}],"tools":[{"type":"function","name":"shell"}]})",
      {"authorization: Bearer sk-proj-FAKE", "content-type: application/json"});
  size_t at = 0;
  for (const char* ev : {"event: response.created", "event: response.output_item.added",
                         "event: response.output_text.delta", "event: response.output_item.done",
                         "\"type\":\"function_call\"", "event: response.completed",
                         "\"usage\":{\"input_tokens\"", "HTTP 200"}) {
    size_t found = out.out.find(ev, at);
    ASSERT_NE(found, std::string::npos) << ev << " missing or out of order in\n" << out.out;
    at = found;
  }
  EXPECT_EQ(requests(log_).at(0)["headers"]["authorization"], "Bearer sk-proj-FAKE");
}

TEST_F(Fakes, ErrorStatusRefusesEveryModelRequest) {
  ASSERT_TRUE(fake_.start("fake_openai.py", log_, {"--error-status", "401"}));
  auto out = post(fake_.url() + "/v1/responses", R"({"input":[]})", {"authorization: Bearer x"});
  EXPECT_NE(out.out.find("HTTP 401"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("invalid_api_key"), std::string::npos);
}

}  // namespace
}  // namespace aw
