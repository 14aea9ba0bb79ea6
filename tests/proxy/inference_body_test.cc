// What the inference proxy reads from a streaming request body: the top-level output limit, at
// any split of the body, and refusals for limits it could not trust.
#include <gtest/gtest.h>

#include "proxy/inference_body.h"

namespace aw {
namespace {

BodyScanner scan_split(const std::string& body, size_t at) {
  BodyScanner s;
  s.feed(std::string_view(body).substr(0, at));
  s.feed(std::string_view(body).substr(at));
  return s;
}

TEST(IsolateInferenceBody, FindsTheTopLevelLimitAtAnySplitAndIgnoresNestedOnes) {
  std::string body =
      R"({"model":"m","messages":[{"role":"user","content":"\"max_tokens\":999999"}],)"
      R"("metadata":{"max_tokens":888888},"max_tokens": 4096,"stream":true})";
  for (size_t at = 0; at <= body.size(); ++at) {
    auto s = scan_split(body, at);
    ASSERT_EQ(s.refused(), "") << at;
    ASSERT_EQ(s.max_tokens(), 4096u) << at;
  }
  BodyScanner openai;
  openai.feed(R"({"input":"hi","max_output_tokens":300})");
  EXPECT_EQ(openai.max_tokens(), 300u);
  BodyScanner none;
  none.feed(R"({"input":"hi","max_output_tokens":null})");
  EXPECT_FALSE(none.max_tokens().has_value());
  EXPECT_EQ(none.refused(), "");
}

TEST(IsolateInferenceBody, TheLargestOfDuplicateLimitsCounts) {
  BodyScanner s;
  s.feed(R"({"max_tokens":10,"max_tokens":5000,"max_tokens":20})");
  EXPECT_EQ(s.max_tokens(), 5000u);
}

TEST(IsolateInferenceBody, RefusesLimitsItCannotTrust) {
  for (const std::string body :
       {R"({"max_tokens":1e9})", R"({"max_tokens":16.5})", R"({"max_tokens":"16"})",
        R"({"max_tokens":-1})", R"({"max\u005ftokens":100000000})"}) {
    BodyScanner s;
    s.feed(body);
    EXPECT_NE(s.refused(), "") << body;
  }
}

}  // namespace
}  // namespace aw
