// parse_route: which targets name which route, and which are refused before any disk access.
#include "serve/route.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

TEST(Route, NamesEachApiRouteWithItsMethod) {
  EXPECT_EQ(parse_route("GET", "/api/v1/units")->kind, RouteKind::units);
  EXPECT_EQ(parse_route("POST", "/api/v1/units")->kind, RouteKind::submit);
  auto u = parse_route("GET", "/api/v1/units/20261129-180312-fix-3f2a");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->kind, RouteKind::unit);
  EXPECT_EQ(u->unit_id, "20261129-180312-fix-3f2a");
  EXPECT_EQ(parse_route("GET", "/api/v1/units/x1/patch")->kind, RouteKind::patch);
  EXPECT_EQ(parse_route("GET", "/api/v1/units/x1/log?offset=10")->query.at("offset"), "10");
  EXPECT_EQ(parse_route("POST", "/api/v1/units/x1/cancel")->kind, RouteKind::cancel);
  EXPECT_EQ(parse_route("POST", "/api/v1/units/x1/apply")->kind, RouteKind::apply);
  EXPECT_EQ(parse_route("POST", "/api/v1/units/x1/replay")->kind, RouteKind::replay);
  auto marks = parse_route("GET", "/api/v1/units/x1/marks?offset=5&end=9");
  ASSERT_TRUE(marks);
  EXPECT_EQ(marks->kind, RouteKind::marks);
  EXPECT_EQ(marks->query.at("end"), "9");
  auto events = parse_route("GET", "/api/v1/units/x1/events");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->kind, RouteKind::events);
  EXPECT_EQ(events->unit_id, "x1");
  EXPECT_TRUE(events->api());  // behind the token, as every API route
  auto thread = parse_route("GET", "/api/v1/units/x1/thread");  // issue 26 item 7
  ASSERT_TRUE(thread);
  EXPECT_EQ(thread->kind, RouteKind::thread);
  EXPECT_EQ(thread->unit_id, "x1");
  EXPECT_TRUE(thread->api());
  EXPECT_EQ(parse_route("POST", "/api/v1/units/x1/thread").error().status, 405);
  EXPECT_EQ(parse_route("GET", "/api/v1/doctor")->kind, RouteKind::doctor);
  EXPECT_EQ(parse_route("GET", "/metrics")->kind, RouteKind::metrics);
  EXPECT_EQ(parse_route("GET", "/")->kind, RouteKind::page);
  EXPECT_EQ(parse_route("GET", "/app.js")->asset, "app.js");
  EXPECT_TRUE(parse_route("GET", "/metrics")->api());
  EXPECT_FALSE(parse_route("GET", "/app.js")->api());
}

TEST(Route, AWrongMethodIs405AndAnUnknownRoute404) {
  EXPECT_EQ(parse_route("DELETE", "/api/v1/units/x1").error().status, 405);
  EXPECT_EQ(parse_route("GET", "/api/v1/units/x1/cancel").error().status, 405);
  EXPECT_EQ(parse_route("GET", "/api/v1/units/x1/replay").error().status, 405);
  EXPECT_EQ(parse_route("POST", "/api/v1/units/x1/marks").error().status, 405);
  EXPECT_EQ(parse_route("GET", "/api/v1/units/x1/marks?download=1").error().status, 400);
  EXPECT_EQ(parse_route("POST", "/api/v1/units/x1/events").error().status, 405);
  EXPECT_EQ(parse_route("GET", "/api/v1/units/x1/events?offset=1").error().status, 400);
  EXPECT_EQ(parse_route("POST", "/").error().status, 405);
  EXPECT_EQ(parse_route("GET", "/api/v1/nothing").error().status, 404);
  EXPECT_EQ(parse_route("GET", "/api/v2/units").error().status, 404);
}

TEST(Route, DotDotEncodedSlashesAndOddIdsAreRefused) {
  for (const char* t :
       {"/api/v1/units/..", "/api/v1/units/../x", "/api/v1/units/%2e%2e", "/api/v1/units/a%2fb",
        "/api/v1/units/a%2Fb/patch", "/api/v1/units/.", "/api/v1/units//patch", "/api/v1/units/A",
        "/api/v1/units/-x", "/api/v1/units/a_b", "/api/v1/units/a\\b", "/.env", "//", "/a/../b",
        "relative", ""}) {
    auto r = parse_route("GET", t);
    EXPECT_FALSE(r) << t;
    if (!r) {
      EXPECT_TRUE(r.error().status == 400 || r.error().status == 404) << t;
    }
  }
  EXPECT_FALSE(parse_route("GET", "/api/v1/units/" + std::string(81, 'a')));
}

TEST(Route, QueryParametersAreDecodedCheckedAndNeverDuplicated) {
  auto r = parse_route("GET", "/api/v1/units?state=done&repo=my%20web+app&limit=5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->query.at("repo"), "my web app");
  EXPECT_EQ(r->query.at("limit"), "5");
  auto unknown = parse_route("GET", "/api/v1/units?colour=red");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("accepts issue, limit, offset, repo, state"), std::string::npos);
  EXPECT_FALSE(parse_route("GET", "/api/v1/units?state=a&state=b"));
  EXPECT_FALSE(parse_route("GET", "/api/v1/units?state=%zz"));
  EXPECT_FALSE(parse_route("GET", "/api/v1/doctor?x=1"));
}

// Issue 25 item 9: a part of the log (offset, end) and the raw file (download=1).
TEST(Route, TheLogTakesAPartAndADownload) {
  auto r = parse_route("GET", "/api/v1/units/x1/log?offset=10&end=20&download=1");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->kind, RouteKind::log);
  EXPECT_EQ(r->query.at("offset"), "10");
  EXPECT_EQ(r->query.at("end"), "20");
  EXPECT_EQ(r->query.at("download"), "1");
  auto unknown = parse_route("GET", "/api/v1/units/x1/log?range=0-9");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("accepts download, end, offset"), std::string::npos)
      << unknown.error().message;
  EXPECT_FALSE(parse_route("GET", "/api/v1/units/x1/log?end=1&end=2"));
}

TEST(Route, ACredentialInTheQueryIsSpotted) {
  EXPECT_TRUE(query_has_credential("/api/v1/units?token=abc"));
  EXPECT_TRUE(query_has_credential("/?x=1&Access_Token=abc"));
  EXPECT_TRUE(query_has_credential("/?%74oken=abc"));
  EXPECT_FALSE(query_has_credential("/api/v1/units?state=done"));
  EXPECT_FALSE(query_has_credential("/api/v1/units"));
}

}  // namespace
}  // namespace aw
