// EventParser on real output captured from the real CLIs (tests/provider/captures, recorded
// against tests/fakes), on any chunking, and on garbage.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <random>

#include "base/fs.h"
#include "provider/events.h"

namespace aw {
namespace {

using Kind = TranscriptEvent::Kind;

std::string capture(const std::string& name) {
  auto data = read_file(std::string(AW_SOURCE_DIR) + "/tests/provider/captures/" + name);
  EXPECT_TRUE(data) << name;
  return data ? *data : "";
}

std::vector<TranscriptEvent> of_kind(const std::vector<TranscriptEvent>& es, Kind k) {
  std::vector<TranscriptEvent> out;
  for (const auto& e : es)
    if (e.kind == k) out.push_back(e);
  return out;
}

std::vector<TranscriptEvent> chunked(const std::string& provider, const std::string& data,
                                     unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> len(0, 97);
  EventParser p(provider);
  for (size_t off = 0; off < data.size();) {
    size_t n = std::min(len(rng), data.size() - off);
    p.feed(std::string_view(data).substr(off, n));
    off += n;
  }
  return p.finish();
}

TEST(ClaudeEvents, TheRealWriteRunGivesMessagesToolCallResultAndUsage) {
  auto es = parse_events("claude", capture("claude-2.1.332-write.jsonl"));
  auto msgs = of_kind(es, Kind::message);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[0].text, "I will write the file.");
  EXPECT_EQ(msgs[1].text, "Done: I wrote the file.");
  auto calls = of_kind(es, Kind::tool_call);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].tool, "Write");
  EXPECT_NE(calls[0].text.find("AWAYWORK_FAKE_EDIT.txt"), std::string::npos);
  auto results = of_kind(es, Kind::tool_result);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].tool, "Write");  // named from the tool_use id
  EXPECT_NE(results[0].text.find("File created successfully"), std::string::npos);
  auto usage = of_kind(es, Kind::usage);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0].output_tokens, 24);
  EXPECT_GT(usage[0].input_tokens, 0);
  EXPECT_TRUE(of_kind(es, Kind::error).empty());
}

// Issue 25 (the agent's steps): the cost Claude Code prints (the result line's total_cost_usd) is
// kept with the tokens; before, the parsers kept tokens only.
TEST(ClaudeEvents, TheResultLinesCostIsKeptWithItsUsage) {
  auto usage = of_kind(parse_events("claude", capture("claude-2.1.332-write.jsonl")), Kind::usage);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_DOUBLE_EQ(usage[0].cost_usd, 0.023704);
  usage = of_kind(parse_events("claude", capture("claude-2.1.332-bash.jsonl")), Kind::usage);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_DOUBLE_EQ(usage[0].cost_usd, 0.023632);
  // A cost without a usage object still counts; what is no amount counts as none.
  auto es = parse_events("claude",
                         R"({"type":"result","subtype":"success","total_cost_usd":0.5})"
                         "\n"
                         R"({"type":"result","subtype":"success","total_cost_usd":-3,"usage":{"output_tokens":1}})"
                         "\n"
                         R"({"type":"result","subtype":"success","total_cost_usd":"9","usage":{"output_tokens":1}})"
                         "\n"
                         R"({"type":"result","subtype":"success","total_cost_usd":1e999})"
                         "\n");
  usage = of_kind(es, Kind::usage);
  ASSERT_EQ(usage.size(), 3u);
  EXPECT_DOUBLE_EQ(usage[0].cost_usd, 0.5);
  EXPECT_EQ(usage[1].cost_usd, 0);
  EXPECT_EQ(usage[2].cost_usd, 0);
  // codex and gemini print no cost: none is made up.
  for (const auto& e : parse_events("codex", capture("codex-0.171.0-patch.jsonl")))
    EXPECT_EQ(e.cost_usd, 0);
  for (const auto& e : parse_events("gemini", capture("gemini-0.61.0-write.jsonl")))
    EXPECT_EQ(e.cost_usd, 0);
}

TEST(ClaudeEvents, TheRealBashRunNamesTheBashTool) {
  auto es = parse_events("claude", capture("claude-2.1.332-bash.jsonl"));
  auto calls = of_kind(es, Kind::tool_call);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].tool, "Bash");
  EXPECT_NE(calls[0].text.find("printf"), std::string::npos);
  auto results = of_kind(es, Kind::tool_result);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].text, "(Bash completed with no output)");
}

TEST(ClaudeEvents, ApiRetriesOfARefusedKeyAreErrors) {
  auto es = parse_events("claude", capture("claude-2.1.332-error401-retries.jsonl"));
  auto errors = of_kind(es, Kind::error);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].text, "API retry 1/10: HTTP 401 authentication_failed");
  EXPECT_TRUE(of_kind(es, Kind::message).empty());
}

TEST(ClaudeEvents, ARefusedKeyWithoutRetriesIsAnErrorWithItsStatus) {
  auto es = parse_events("claude", capture("claude-2.1.332-error403.jsonl"));
  auto errors = of_kind(es, Kind::error);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].text, "Invalid API key · Fix external API key");
  EXPECT_EQ(errors[1].text, "Invalid API key · Fix external API key (HTTP 403)");
  EXPECT_TRUE(of_kind(es, Kind::message).empty());
}

TEST(CodexEvents, TheRealPatchRunGivesTheFileChangeAndUsage) {
  auto es = parse_events("codex", capture("codex-0.171.0-patch.jsonl"));
  auto msgs = of_kind(es, Kind::message);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[1].text, "Done: I wrote the file.");
  auto calls = of_kind(es, Kind::tool_call);
  ASSERT_EQ(calls.size(), 1u);  // item.started is not counted twice
  EXPECT_EQ(calls[0].tool, "file_change");
  EXPECT_EQ(calls[0].text, "add /tmp/cdx/repo/AWAYWORK_FAKE_EDIT.txt");
  auto usage = of_kind(es, Kind::usage);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0].input_tokens, 30371);
  EXPECT_EQ(usage[0].output_tokens, 24);
}

TEST(CodexEvents, TheRealShellRunGivesTheCommandAndItsExitCode) {
  auto es = parse_events("codex", capture("codex-0.171.0-shell.jsonl"));
  auto calls = of_kind(es, Kind::tool_call);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].tool, "command");
  EXPECT_NE(calls[0].text.find("AWAYWORK_FAKE_EDIT.txt"), std::string::npos);
  auto results = of_kind(es, Kind::tool_result);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].text.rfind("exit 0\n", 0), 0u);
}

TEST(CodexEvents, ARefusedKeyGivesTheRetriesAndTheFailedTurn) {
  auto es = parse_events("codex", capture("codex-0.171.0-error401.jsonl"));
  auto errors = of_kind(es, Kind::error);
  ASSERT_EQ(errors.size(), 7u);
  EXPECT_NE(errors.back().text.find("401 Unauthorized"), std::string::npos);
  EXPECT_TRUE(of_kind(es, Kind::usage).empty());
}

// Shapes from cursor-agent's documentation (it is not on npm, so no real capture here).
TEST(CursorEvents, ToolCallLinesAndAssistantTextAreRead) {
  std::string out =
      R"({"type":"system","subtype":"init","apiKeySource":"env","cwd":"/w","session_id":"s","model":"x","permissionMode":"default"})"
      "\n"
      R"({"type":"user","message":{"role":"user","content":[{"type":"text","text":"the prompt"}]},"session_id":"s"})"
      "\n"
      R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading."}]},"session_id":"s"})"
      "\n"
      R"({"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"writeToolCall":{"args":{"path":"a.txt","fileText":"hi"}}},"session_id":"s"})"
      "\n"
      R"({"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"writeToolCall":{"args":{"path":"a.txt"},"result":{"success":{"path":"a.txt","linesCreated":1}}}},"session_id":"s"})"
      "\n"
      R"({"type":"result","subtype":"success","is_error":false,"result":"Reading.","session_id":"s","usage":{"inputTokens":10,"outputTokens":4,"cacheReadTokens":5}})"
      "\n";
  auto es = parse_events("cursor", out);
  ASSERT_EQ(es.size(), 4u);
  EXPECT_EQ(es[3].kind, Kind::usage);
  EXPECT_EQ(es[3].input_tokens, 15);
  EXPECT_EQ(es[3].output_tokens, 4);
  EXPECT_EQ(es[0].text, "Reading.");  // the echoed prompt is not a message
  EXPECT_EQ(es[1].kind, Kind::tool_call);
  EXPECT_EQ(es[1].tool, "write");
  EXPECT_NE(es[1].text.find("a.txt"), std::string::npos);
  EXPECT_EQ(es[2].kind, Kind::tool_result);
  EXPECT_NE(es[2].text.find("linesCreated"), std::string::npos);
}

// Shapes read from @google/gemini-cli 0.61.0's stream formatter (no Gemini fake yet).
TEST(GeminiEvents, AssistantDeltasJoinIntoOneMessage) {
  std::string out =
      R"({"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"})"
      "\n"
      R"({"type":"message","timestamp":"t","role":"user","content":"the prompt"})"
      "\n"
      R"({"type":"message","timestamp":"t","role":"assistant","content":"Hel","delta":true})"
      "\n"
      R"({"type":"message","timestamp":"t","role":"assistant","content":"lo","delta":true})"
      "\n"
      R"({"type":"tool_use","timestamp":"t","tool_name":"write_file","tool_id":"w1","parameters":{"file_path":"a"}})"
      "\n"
      R"({"type":"tool_result","timestamp":"t","tool_id":"w1","status":"error","output":"","error":{"type":"E","message":"denied"}})"
      "\n"
      R"({"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"duration_ms":5,"tool_calls":1}})"
      "\n";
  auto es = parse_events("gemini", out);
  ASSERT_EQ(es.size(), 4u);
  EXPECT_EQ(es[0].kind, Kind::message);
  EXPECT_EQ(es[0].text, "Hello");
  EXPECT_EQ(es[1].tool, "write_file");
  EXPECT_EQ(es[2].tool, "write_file");
  EXPECT_EQ(es[2].text, "error: denied");
  EXPECT_EQ(es[3].kind, Kind::usage);
  EXPECT_EQ(es[3].input_tokens, 20);
  EXPECT_EQ(es[3].output_tokens, 10);
}

// Shapes read from opencode 1.18.33's `run --format json` emitter.
TEST(OpencodeEvents, TextToolAndStepUsageAreRead) {
  std::string out =
      R"({"type":"step_start","timestamp":1,"sessionID":"s","part":{"type":"step-start"}})"
      "\n"
      R"({"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"a.txt\n","title":"ls"}}})"
      "\n"
      R"({"type":"text","timestamp":1,"sessionID":"s","part":{"type":"text","text":"Done."}})"
      "\n"
      R"({"type":"step_finish","timestamp":1,"sessionID":"s","part":{"type":"step-finish","tokens":{"input":100,"output":7,"reasoning":3,"cache":{"read":50,"write":0}},"cost":0}})"
      "\n"
      R"({"type":"error","timestamp":1,"sessionID":"s","error":{"name":"APIError","data":{"message":"HTTP 401"}}})"
      "\n";
  auto es = parse_events("opencode", out);
  ASSERT_EQ(es.size(), 5u);
  EXPECT_EQ(es[0].tool, "bash");
  EXPECT_EQ(es[1].text, "a.txt\n");
  EXPECT_EQ(es[2].text, "Done.");
  EXPECT_EQ(es[3].input_tokens, 150);
  EXPECT_EQ(es[3].output_tokens, 10);
  EXPECT_EQ(es[4].text, "HTTP 401");
}

TEST(CommandEvents, EveryNonBlankLineIsAMessage) {
  auto es = parse_events("command", "first\r\n\n  \nsecond without newline");
  ASSERT_EQ(es.size(), 2u);
  EXPECT_EQ(es[0].text, "first");
  EXPECT_EQ(es[1].text, "second without newline");
}

struct Capture {
  const char* provider;
  const char* file;
};
const Capture kCaptures[] = {
    {"claude", "claude-2.1.332-write.jsonl"},
    {"claude", "claude-2.1.332-bash.jsonl"},
    {"claude", "claude-2.1.332-error401-retries.jsonl"},
    {"claude", "claude-2.1.332-error403.jsonl"},
    {"codex", "codex-0.171.0-patch.jsonl"},
    {"codex", "codex-0.171.0-shell.jsonl"},
    {"codex", "codex-0.171.0-error401.jsonl"},
    {"opencode", "opencode-1.18.33-write.jsonl"},
    {"gemini", "gemini-0.61.0-write.jsonl"},
};

TEST(EventParser, AnyChunkingGivesTheSameEvents) {
  for (const auto& c : kCaptures) {
    std::string data = capture(c.file);
    auto whole = parse_events(c.provider, data);
    ASSERT_FALSE(whole.empty()) << c.file;
    for (unsigned seed = 1; seed <= 20; ++seed)
      EXPECT_EQ(chunked(c.provider, data, seed), whole) << c.file << " seed " << seed;
    EventParser bytewise(c.provider);
    for (char ch : data) bytewise.feed(std::string_view(&ch, 1));
    EXPECT_EQ(bytewise.finish(), whole) << c.file;
  }
}

TEST(EventParser, EveryCutOfEveryRealLineIsSurvivedAndCounted) {
  for (const auto& c : kCaptures) {
    std::string data = capture(c.file);
    for (size_t cut = 0; cut < data.size(); cut += 7) {
      std::string torn = data.substr(0, cut) + "\n" + data.substr(cut);
      auto es = parse_events(c.provider, torn);  // must not crash; the rest still parses
      EXPECT_FALSE(es.empty()) << c.file << " cut " << cut;
    }
  }
}

TEST(EventParser, RandomBytesAndWrongShapesNeverCrashAnyParser) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::string shapes[] = {
      R"({"type":"assistant","message":{"content":"not a list"}})",
      R"({"type":"assistant","message":[1,2]})",
      R"({"type":"assistant","message":{"content":[1,null,{"type":"tool_use","input":{"a":[{}]}}]}})",
      R"({"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text"}],"is_error":"yes"}]}})",
      R"({"type":"result","usage":{"input_tokens":-5,"output_tokens":"many"},"is_error":1})",
      R"({"type":"item.completed","item":{"type":"command_execution","exit_code":"x"}})",
      R"({"type":"item.completed","item":{"type":"file_change","changes":[1,{"kind":2}]}})",
      R"({"type":"turn.completed","usage":[]})",
      R"({"type":"tool_call","subtype":"started","tool_call":{"x":1}})",
      R"({"type":"tool_use","part":{"state":"s"}})",
      R"({"type":5})",
      R"([1,2,3])",
      R"("just a string")",
      std::string(100000, '[') + std::string(100000, ']'),
      "{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"\xff\xfe bad "
      "utf8\"}}",
  };
  for (const char* provider : {"claude", "cursor", "codex", "gemini", "opencode", "command"}) {
    std::string junk;
    for (const auto& s : shapes) junk += s + "\n";
    for (int i = 0; i < 20000; ++i) junk += static_cast<char>(byte(rng));
    auto es = chunked(provider, junk, 3);
    EXPECT_EQ(chunked(provider, junk, 4), es) << provider;
    for (const auto& e : es) EXPECT_LE(e.text.size(), kEventTextMax + 3) << provider;
  }
}

TEST(EventParser, AnOverlongLineIsSkippedAndTheNextOneStillParses) {
  EventParser p("codex");
  std::string big(1 << 20, 'x');
  for (size_t i = 0; i < kEventLineMax / big.size() + 2; ++i) p.feed(big);
  p.feed(
      "\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"after\"}}\n");
  auto es = p.finish();
  ASSERT_EQ(es.size(), 2u);
  EXPECT_EQ(es[0].kind, Kind::error);
  EXPECT_NE(es[0].text.find("skipped"), std::string::npos);
  EXPECT_EQ(es[1].text, "after");
}

TEST(EventParser, LongTextIsCutOnAUtf8Boundary) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "é";
  auto es = parse_events("command", text);
  ASSERT_EQ(es.size(), 1u);
  EXPECT_LE(es[0].text.size(), kEventTextMax + 3);
  EXPECT_EQ(es[0].text.substr(es[0].text.size() - 3), "…");
  std::string body = es[0].text.substr(0, es[0].text.size() - 3);
  EXPECT_EQ(body.size() % 2, 0u);  // whole two-byte characters only
}

TEST(EventParser, TheEventCountIsCappedWithOneNote) {
  std::string many;
  for (size_t i = 0; i < kEventsMax + 10; ++i) many += "line\n";
  auto es = parse_events("command", many);
  ASSERT_EQ(es.size(), kEventsMax + 1);
  EXPECT_EQ(es.back().kind, Kind::error);
  EXPECT_NE(es.back().text.find("10 more event(s) dropped"), std::string::npos);
}

TEST(EventParser, NonJsonLinesOfAJsonCliAreCountedOnce) {
  auto es = parse_events("claude", "Warning: something\nnot json either\n");
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].kind, Kind::error);
  EXPECT_EQ(es[0].text, "2 line(s) of output were not JSON events");
}

class EventsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-provider-events-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { (void)remove_tree(dir_); }
  std::string dir_;
};

TEST_F(EventsFile, WriteThenReadGivesTheSameEventsEvenWithInvalidUtf8) {
  auto es = parse_events("claude", capture("claude-2.1.332-write.jsonl"));
  es.push_back({Kind::message, "bad \xff byte", "", 0, 0});
  std::string path = dir_ + "/events.json";
  ASSERT_TRUE(write_events(path, es));
  auto back = read_events(path);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), es.size());
  for (size_t i = 0; i + 1 < es.size(); ++i) EXPECT_EQ((*back)[i], es[i]);
  EXPECT_EQ(back->back().text, "bad \xEF\xBF\xBD byte");  // replaced, not refused
  auto usage = of_kind(*back, Kind::usage);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_DOUBLE_EQ(usage[0].cost_usd, 0.023704);  // the cost too (issue 25)
}

// Issue 25: a cost in events.json that is no amount is an error naming the field, as for tokens.
TEST_F(EventsFile, ACostThatIsNoAmountIsAnErrorNamingIt) {
  std::string path = dir_ + "/events.json";
  ASSERT_TRUE(write_file(path, R"({"events":[{"kind":"usage","cost_usd":"cheap"}]})"));
  auto r = read_events(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            path + R"(: field "events[0].cost_usd": expected a number, got string)");
  ASSERT_TRUE(write_file(path, R"({"events":[{"kind":"usage","cost_usd":-1}]})"));
  r = read_events(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("events[0].cost_usd\": not an amount"), std::string::npos)
      << r.error().message;
  ASSERT_TRUE(write_file(path, R"({"events":[{"kind":"usage","input_tokens":3,"cost_usd":0.25}]})"));
  r = read_events(path);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_DOUBLE_EQ((*r)[0].cost_usd, 0.25);
}

TEST_F(EventsFile, ARecordedStdoutFileParsesLikeTheBytes) {
  std::string data = capture("codex-0.171.0-patch.jsonl");
  std::string path = dir_ + "/agent.out";
  ASSERT_TRUE(write_file(path, data));
  auto es = parse_events_file("codex", path);
  ASSERT_TRUE(es) << es.error().message;
  EXPECT_EQ(*es, parse_events("codex", data));
  ASSERT_EQ(::symlink(path.c_str(), (dir_ + "/link").c_str()), 0);
  EXPECT_FALSE(parse_events_file("codex", dir_ + "/link"));  // a planted link is not followed
}

TEST_F(EventsFile, ABadFileIsAnErrorNamingIt) {
  std::string path = dir_ + "/events.json";
  ASSERT_TRUE(write_file(path, R"({"events":[{"kind":"shout","text":"x"}]})"));
  auto r = read_events(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(path), std::string::npos);
  EXPECT_NE(r.error().message.find("shout"), std::string::npos);
  EXPECT_FALSE(read_events(dir_ + "/missing.json"));
}

// Issue 38, item 2: a wrongly typed field is an error naming it and where, read without a throw.
TEST_F(EventsFile, AWronglyTypedFieldIsAnErrorNamingIt) {
  std::string path = dir_ + "/events.json";
  ASSERT_TRUE(write_file(path, R"({"events":[{"kind":"message","text":"hi"},)"
                               R"({"kind":"usage","input_tokens":"many"}]})"));
  auto r = read_events(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            path + R"(: field "events[1].input_tokens": expected an integer, got string)");
  ASSERT_TRUE(write_file(path, R"({"events":[{"kind":["message"]}]})"));
  r = read_events(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, path + R"(: field "events[0].kind": expected a string, got array)");
  ASSERT_TRUE(write_file(path, R"({"events":{"kind":"message"}})"));
  r = read_events(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, path + R"(: field "events": expected an array, got object)");
}

}  // namespace
}  // namespace aw

namespace aw {
namespace {

TEST(RenderEvents, ShowsEachEventSumsUsageAndNeutralisesTerminalEscapes) {
  std::vector<TranscriptEvent> es = {
      {TranscriptEvent::Kind::message, "hello\x1b[2Jworld", "", 0, 0},
      {TranscriptEvent::Kind::error,
       "c1 \xC2\x9B"
       "31m csi",
       "", 0, 0},
      {TranscriptEvent::Kind::tool_call, "{\"command\":\"ls\"}", "Bash", 0, 0},
      {TranscriptEvent::Kind::tool_result, "1\n2\n3\n4\n5\n6\n7\n8", "Bash", 0, 0},
      {TranscriptEvent::Kind::usage, "", "", 100, 5, 0.02},
      {TranscriptEvent::Kind::usage, "", "", 20, 1, 0.0037},
  };
  std::string out = render_events(es);
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_NE(out.find("hello\\x1b[2Jworld"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xC2\x9B"), std::string::npos) << out;
  EXPECT_NE(out.find("c1 \\u009b31m csi"), std::string::npos) << out;
  EXPECT_NE(out.find("tool_call    Bash  {\"command\":\"ls\"}"), std::string::npos) << out;
  EXPECT_NE(out.find("6 …"), std::string::npos) << out;  // cut after six lines
  EXPECT_EQ(out.find("\n               7"), std::string::npos) << out;
  EXPECT_NE(out.find("120 input, 6 output tokens, $0.0237 (the CLI's figure)"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace aw

namespace aw {
namespace {

// Captured from the real opencode 1.18.33 run through provider_launch's OPENCODE_CONFIG_CONTENT
// (anthropic baseURL) against tests/fakes/fake_anthropic.py.
TEST(OpencodeEvents, TheRealWriteRunGivesTheWriteToolAndStepUsage) {
  auto data = read_file(std::string(AW_SOURCE_DIR) +
                        "/tests/provider/captures/opencode-1.18.33-write.jsonl");
  ASSERT_TRUE(data);
  auto es = parse_events("opencode", *data);
  std::vector<std::string> seen;
  for (const auto& e : es) seen.push_back(std::string(to_string(e.kind)) + ":" + e.tool);
  EXPECT_EQ(seen, (std::vector<std::string>{"message:", "tool_call:write", "tool_result:write",
                                            "usage:", "message:", "usage:"}));
  EXPECT_NE(es[1].text.find("AWAYWORK_FAKE_EDIT.txt"), std::string::npos);
  EXPECT_EQ(es[4].text, "Done: I wrote the file.");
  EXPECT_GT(es[3].input_tokens, 0);
  // Each step's cost (issue 25).
  EXPECT_DOUBLE_EQ(es[3].cost_usd, 0.000273);
  EXPECT_DOUBLE_EQ(es[5].cost_usd, 0.000615);
}

}  // namespace
}  // namespace aw

namespace aw {
namespace {

// Captured from the real gemini 0.61.0 against tests/fakes/fake_gemini.py.
TEST(GeminiEvents, TheRealWriteRunGivesTheWriteFileToolAndUsage) {
  auto data =
      read_file(std::string(AW_SOURCE_DIR) + "/tests/provider/captures/gemini-0.61.0-write.jsonl");
  ASSERT_TRUE(data);
  auto es = parse_events("gemini", *data);
  std::vector<std::string> seen;
  for (const auto& e : es) seen.push_back(std::string(to_string(e.kind)) + ":" + e.tool);
  EXPECT_EQ(seen, (std::vector<std::string>{"message:", "tool_call:write_file",
                                            "tool_result:write_file", "message:", "usage:"}));
  EXPECT_EQ(es[3].text, "Done: I wrote the file.");
  EXPECT_GT(es[4].input_tokens, 0);
}

}  // namespace
}  // namespace aw
