// The wire to a plugin: one request line out, one reply line back, read as hostile data (capped,
// parsed without exceptions, checked against the request, its words made inert in errors).
#include <gtest/gtest.h>

#include "plugin/protocol.h"

namespace aw {
namespace {

std::string error_of(std::string_view out) {
  auto r = rpc_reply(out, "probe");
  EXPECT_FALSE(r) << "accepted: " << out;
  return r ? "" : r.error().message;
}

TEST(PluginProtocol, TheRequestIsOneJsonRpcLine) {
  std::string line = rpc_request("unit_ended", {{"state", "done"}, {"title", "a\nb"}});
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // the title's newline is escaped
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["jsonrpc"], "2.0");
  EXPECT_EQ(j["id"], kPluginCallId);
  EXPECT_EQ(j["method"], "unit_ended");
  EXPECT_EQ(j["params"]["title"], "a\nb");
}

TEST(PluginProtocol, TextThatIsNotUtf8StillMakesARequest) {
  std::string line = rpc_request("unit_ended", {{"title", std::string("bad \xff byte")}});
  EXPECT_NE(line.find("bad "), std::string::npos) << line;
}

TEST(PluginProtocol, AValidReplyGivesItsResultAndIgnoresWhatFollows) {
  auto r =
      rpc_reply("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\ntrailing junk", "probe");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["ok"], true);
}

TEST(PluginProtocol, GarbageIsRefusedNamingThePlugin) {
  EXPECT_NE(error_of("").find("plugin probe: printed no reply"), std::string::npos);
  EXPECT_NE(error_of("\n").find("printed no reply"), std::string::npos);
  EXPECT_NE(error_of("hello world\n").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of("[1,2]\n").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}").find("\"2.0\""),
            std::string::npos);
  EXPECT_NE(error_of("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}").find("\"id\""),
            std::string::npos);
  EXPECT_NE(error_of("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}").find("id"),
            std::string::npos);
  EXPECT_NE(error_of("{\"jsonrpc\":\"2.0\",\"id\":1}").find("exactly one"), std::string::npos);
  EXPECT_NE(
      error_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}").find("exactly one"),
      std::string::npos);
  EXPECT_NE(error_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"text\"}").find("result"),
            std::string::npos);
}

TEST(PluginProtocol, APluginsErrorIsQuotedInertAndShort) {
  std::string hostile = "\x1b[2J\x1b]0;owned\x07 \u202e" + std::string(500, 'A');
  nlohmann::json reply = {
      {"jsonrpc", "2.0"}, {"id", 1}, {"error", {{"code", -32000}, {"message", hostile}}}};
  std::string e = error_of(reply.dump());
  EXPECT_NE(e.find("plugin probe answered error -32000: "), std::string::npos) << e;
  EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
  EXPECT_EQ(e.find('\x07'), std::string::npos) << e;
  EXPECT_EQ(e.find("\u202e"), std::string::npos) << e;
  EXPECT_LT(e.size(), 400u) << e;
}

TEST(PluginProtocol, AReplyPastTheCapIsRefused) {
  std::string big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"" +
                    std::string(kPluginReplyCap, 'x') + "\"}}";
  EXPECT_NE(error_of(big).find("larger than"), std::string::npos);
}

}  // namespace
}  // namespace aw
