// guard(): Host, Origin, preflight, a credential in the URL, and the bearer token.
#include "serve/guard.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

const std::string kToken(64, 'a');
const GuardConfig kCfg{8080, kToken};
const std::string kBearer = "Bearer " + kToken;

GuardRequest api_get(std::string_view host, std::optional<std::string_view> auth = kBearer) {
  return {"GET", "/api/v1/units", host, std::nullopt, auth, true, {}};
}

TEST(Guard, OnlyTheLoopbackNamesWithThePortServedPass) {
  EXPECT_FALSE(guard(api_get("127.0.0.1:8080"), kCfg));
  EXPECT_FALSE(guard(api_get("localhost:8080"), kCfg));
  EXPECT_FALSE(guard(api_get("[::1]:8080"), kCfg));
  for (const char* h : {"evil.example:8080", "127.0.0.1:8081", "127.0.0.1", "localhost",
                        "127.0.0.2:8080", "LOCALHOST:8080", "127.0.0.1:8080 ", ""})
    EXPECT_EQ(guard(api_get(h), kCfg)->status, 421) << h;
  GuardRequest none = api_get("x");
  none.host = std::nullopt;
  EXPECT_EQ(guard(none, kCfg)->status, 421);
}

// Issue 25: with two Host headers the guard judged the first; a good first one let the second
// through. A request giving Host, Origin or Authorization twice is a 400 whatever the copies say.
TEST(Guard, AHeaderItReadsGivenTwiceIsA400) {
  for (const char* name : {"Host", "Origin", "Authorization"}) {
    GuardRequest r = api_get("127.0.0.1:8080");
    r.repeated = name;
    auto no = guard(r, kCfg);
    ASSERT_TRUE(no) << name;
    EXPECT_EQ(no->status, 400);
    EXPECT_NE(no->message.find(name), std::string::npos) << no->message;
  }
}

TEST(Guard, AnOriginMustBeThePagesOwn) {
  GuardRequest r = api_get("127.0.0.1:8080");
  r.origin = "http://127.0.0.1:8080";
  EXPECT_FALSE(guard(r, kCfg));
  for (const char* o : {"http://evil.example", "null", "http://localhost:8080",
                        "https://127.0.0.1:8080", "http://127.0.0.1:8081"}) {
    r.origin = o;
    EXPECT_EQ(guard(r, kCfg)->status, 403) << o;
  }
}

TEST(Guard, PreflightsAreRefusedEvenWithAGoodHost) {
  GuardRequest r = api_get("127.0.0.1:8080");
  r.method = "OPTIONS";
  EXPECT_EQ(guard(r, kCfg)->status, 405);
}

TEST(Guard, TheApiNeedsExactlyTheBearerToken) {
  EXPECT_EQ(guard(api_get("127.0.0.1:8080", std::nullopt), kCfg)->status, 401);
  EXPECT_EQ(guard(api_get("127.0.0.1:8080", "Bearer " + std::string(64, 'b')), kCfg)->status, 401);
  EXPECT_EQ(guard(api_get("127.0.0.1:8080", "Bearer " + kToken + "a"), kCfg)->status, 401);
  EXPECT_EQ(guard(api_get("127.0.0.1:8080", "Basic " + kToken), kCfg)->status, 401);
  EXPECT_EQ(guard(api_get("127.0.0.1:8080", kToken), kCfg)->status, 401);
  auto msg = guard(api_get("127.0.0.1:8080", std::nullopt), kCfg)->message;
  EXPECT_EQ(msg.find(kToken), std::string::npos);
  GuardRequest page{"GET", "/", "127.0.0.1:8080", std::nullopt, std::nullopt, false, {}};
  EXPECT_FALSE(guard(page, kCfg)) << "the page carries no data and needs no token";
}

TEST(Guard, ATokenInTheQueryIsRefusedBeforeAuthentication) {
  GuardRequest r = api_get("127.0.0.1:8080");
  std::string target = "/api/v1/units?token=" + kToken;
  r.target = target;
  auto no = guard(r, kCfg);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->status, 400);
  EXPECT_EQ(no->message.find(kToken), std::string::npos);
}

// Issue 25: bound to [::1] the URL named 127.0.0.1, where another program received the token.
TEST(Guard, ThePagesUrlNamesAnAddressTheServerHoldsAndTheGuardAccepts) {
  EXPECT_EQ(page_host("127.0.0.1", 8080), "127.0.0.1:8080");
  EXPECT_EQ(page_host("0.0.0.0", 8080), "127.0.0.1:8080");
  EXPECT_EQ(page_host("::1", 8080), "[::1]:8080");
  EXPECT_EQ(page_host("::", 8080), "[::1]:8080");
  for (const char* bound : {"127.0.0.2", "192.168.1.5", "::ffff:127.0.0.1", "fe80::1", ""})
    EXPECT_EQ(page_host(bound, 8080), std::nullopt) << bound;
  for (const char* bound : {"127.0.0.1", "0.0.0.0", "::1", "::"})
    EXPECT_TRUE(loopback_host(*page_host(bound, 8080), 8080)) << bound;
}

TEST(Guard, ConstantTimeEqualityIsEquality) {
  EXPECT_TRUE(equal_constant_time("abc", "abc"));
  EXPECT_FALSE(equal_constant_time("abc", "abd"));
  EXPECT_FALSE(equal_constant_time("abc", "ab"));
  EXPECT_TRUE(equal_constant_time("", ""));
}

}  // namespace
}  // namespace aw
