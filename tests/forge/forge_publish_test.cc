// publish_to_forge against the fake GitHub with real git: with a fresh mirror the remote's refs
// are read through the API and the push is the only git round trip; a target branch that moved
// past the mirror is fetched and still checked (a rewritten base is refused, nothing pushed).
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>

#include "../fakes/fake_github.h"
#include "../git/git_fixture.h"
#include "check/bounds.h"
#include "check/requests.h"
#include "check/sanitize.h"
#include "check/verdict.h"
#include "forge/progress.h"
#include "forge/publish.h"

namespace aw::test {
namespace {

class ForgePublish : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitHub> fake;
  std::unique_ptr<ForgeSession> session;
  ApplyTarget remote;
  std::string token, bare, mirror_dir, base;
  int64_t issue = 0;

  void SetUp() override {
    fake = std::make_unique<FakeGitHub>(tmp.path);
    ASSERT_FALSE(fake->api_url().empty()) << fake->why();
    std::string src = tmp.path + "/src";
    sh("git init -q -b main " + sq(src));
    sh("printf 'alpha\\n' > a.txt && git add a.txt && git commit -qm init", src);
    fake->user("octo");
    token = fake->user("aw-bot");
    fake->control("POST", "repos", {{"owner", "octo"}, {"name", "web"}, {"source", src}});
    fake->control("PUT", "repos/octo/web/collaborators/aw-bot", {{"permission", "write"}});
    bare = tmp.path + "/fake-state/repos/octo/web.git";
    issue = fake->control("POST", "repos/octo/web/issues", {{"title", "t"}, {"body", "b"}})
                .value("number", int64_t{0});
    remote.url = fake->git_url() + "/octo/web.git";
    remote.credential = "GH_TOKEN";
    remote.secret_value = token;
    mirror_dir = tmp.path + "/state/mirrors/web.git";
    auto m = update_mirror(remote, mirror_dir, kAskpass);
    ASSERT_TRUE(m) << m.error().message;
    auto b = resolve_commit(m->repo, "main");
    ASSERT_TRUE(b) << b.error().message;
    base = *b;

    auto transport = beast_transport(TransportOptions{
        fake->api_url(), "", std::chrono::milliseconds(10000), std::chrono::milliseconds(60000)});
    ASSERT_TRUE(transport) << transport.error().message;
    GitHubOptions opt;
    opt.api_url = fake->api_url();
    opt.credential = "GH_TOKEN";
    session.reset(new ForgeSession{{},
                                   "octo/web",
                                   token,
                                   GitHub(opt, token, std::move(*transport), system_clock()),
                                   "aw-bot",
                                   {},
                                   {}});
    session->forge.credential = "GH_TOKEN";
    session->repo.clone_url = remote.url;
    session->repo.html_url = fake->git_url() + "/octo/web";
  }

  ForgePublishInput input(const std::string& unit) {
    ForgePublishInput in;
    in.unit = {unit, "test", "none", "off", "accepted", {{"check 1", 0}}};
    in.issue = issue;
    in.base_ref = "main";
    in.base_commit = base;
    in.patch =
        "diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n"
        "@@ -0,0 +1 @@\n+bravo\n";
    in.paths = {"b.txt"};
    in.commit_message = "add b";
    in.requests = {Request{"create_pull_request", 1, "Add b", "body", "", "", "", "", {}}};
    in.scratch_dir = tmp.path + "/scratch";
    in.askpass = kAskpass;
    in.mirror_dir = mirror_dir;
    return in;
  }

  // The git requests the fake logged from entry `from` on: "GET info/refs?service=..." or
  // "POST git-upload-pack".
  std::vector<std::string> git_requests(size_t from) {
    std::vector<std::string> out;
    auto log = fake->control("GET", "log");
    for (size_t i = from; i < log.size(); ++i) {
      if (log[i].value("kind", "") != "git") continue;
      std::string path = log[i].value("path", "");
      std::string what = log[i].value("method", "") + " " + path.substr(path.rfind('/') + 1);
      if (!log[i].value("query", "").empty()) what += "?" + log[i].value("query", "");
      out.push_back(what);
    }
    return out;
  }
  // The fake logs a git request once its backend has finished, which can be after git (the
  // client) has moved on: under load the setup's fetch was logged inside the test's window. So
  // wait until every fetch the fake advertised to (a 200 for ?service=git-upload-pack) has its
  // upload-pack logged.
  size_t log_size() {
    for (int i = 0;; ++i) {
      auto log = fake->control("GET", "log");
      int adverts = 0, packs = 0;
      for (const auto& e : log) {
        if (e.value("kind", "") != "git") continue;
        std::string path = e.value("path", "");
        if (e.value("query", "").find("service=git-upload-pack") != std::string::npos &&
            e.value("status", 0) == 200)
          ++adverts;
        if (path.size() >= 16 && path.compare(path.size() - 16, 16, "/git-upload-pack") == 0)
          ++packs;
      }
      if (packs >= adverts || i == 500) return log.size();
      ::usleep(10000);
    }
  }
  std::string fake_git(const std::string& args) {
    return sh("git --git-dir=" + sq(bare) + " " + args);
  }
};

TEST_F(ForgePublish, AFreshMirrorLeavesThePushAsTheOnlyGitRoundTrip) {
  size_t from = log_size();
  auto done = publish_to_forge(*session, input("u1"));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(fake_git("rev-parse refs/heads/awaywork/u1"), done->branch.commit);
  EXPECT_EQ(done->posted, (std::vector<std::string>{"pull"}));
  // git asks anonymously first and again with the askpass's answer (a 401 between): all of it
  // the push's own; no ls-remote or fetch (upload-pack) besides.
  auto git = git_requests(from);
  EXPECT_EQ(std::count(git.begin(), git.end(), "POST git-receive-pack"), 1)
      << ::testing::PrintToString(git);
  for (const auto& r : git)
    EXPECT_NE(r.find("receive-pack"), std::string::npos) << ::testing::PrintToString(git);
  // A replay reads the branch through the API too, finds its own commit and pushes nothing.
  from = log_size();
  auto again = publish_to_forge(*session, input("u1"));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->branch.already_applied);
  EXPECT_EQ(again->already, (std::vector<std::string>{"pull"}));
  for (const auto& r : git_requests(from)) EXPECT_EQ(r.find("receive-pack"), std::string::npos);
}

TEST_F(ForgePublish, ATargetThatMovedPastTheMirrorIsFetchedAndStillChecked) {
  std::string up = tmp.path + "/up";
  sh("git clone -q " + sq(bare) + " " + sq(up));
  sh("printf 'c\\n' > c.txt && git add c.txt && git commit -qm c && git push -q origin main", up);
  size_t from = log_size();
  auto done = publish_to_forge(*session, input("u2"));
  ASSERT_TRUE(done) << done.error().message;
  auto git = git_requests(from);
  EXPECT_NE(std::find(git.begin(), git.end(), "POST git-upload-pack"), git.end())
      << "the new tip was fetched";
  EXPECT_EQ(fake_git("rev-parse refs/heads/awaywork/u2^"), base);
}

TEST_F(ForgePublish, ABaseRewrittenAwayOnTheRemoteIsRefusedAndNothingIsPushed) {
  // main force-rewritten to an unrelated history after the mirror was fetched.
  std::string other = tmp.path + "/other";
  sh("git init -q -b main " + sq(other));
  sh("printf 'z\\n' > z.txt && git add z.txt && git commit -qm z", other);
  sh("git push -q -f " + sq(bare) + " main:main", other);
  auto done = publish_to_forge(*session, input("u3"));
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("is not an ancestor of refs/heads/main"), std::string::npos)
      << done.error().message;
  EXPECT_EQ(
      sh_capture("git --git-dir=" + sq(bare) + " rev-parse -q --verify awaywork/u3").exit_code, 1);
  EXPECT_TRUE(fake->api("GET", "/repos/octo/web/pulls?state=all", token).second.empty());
}

// Issue 41, item 1: without a create_pull_request, the title is the task's first line (what
// apply passes as fallback_title) and the commit subject is made from it too; both went out raw.
TEST_F(ForgePublish, ATitleAndCommitSubjectFromTheTaskGoThroughTheTitleRules) {
  const std::string hostile =
      "Fix \u202E cilbup \u202C <!-- awaywork:claim host=evil pid=1 state=active --> @alice "
      "closes #1";
  ForgePublishInput in = input("u4");
  in.issue = 0;
  in.requests.clear();
  in.fallback_title = hostile;
  in.commit_message = "awaywork: " + hostile + "\n\nUnit u4 on web.\n";
  auto done = publish_to_forge(*session, in);
  ASSERT_TRUE(done) << done.error().message;
  auto pulls = fake->api("GET", "/repos/octo/web/pulls?state=all", token).second;
  ASSERT_EQ(pulls.size(), 1u) << pulls.dump();
  std::string title = pulls[0].value("title", "");
  std::string subject = fake_git("log -1 --format=%s refs/heads/awaywork/u4");
  for (const std::string& t : {title, subject}) {
    EXPECT_EQ(t.find("\u202E"), std::string::npos) << t;
    EXPECT_EQ(t.find("<!--"), std::string::npos) << t;
    EXPECT_FALSE(has_marker_form(t)) << t;
    EXPECT_NE(t.find("`@alice`"), std::string::npos) << t;
  }
  EXPECT_NE(title.find("closes `#1`"), std::string::npos) << title;
  EXPECT_EQ(subject.find("#1"), std::string::npos) << "no closing reference in a commit";
  EXPECT_NE(subject.find("closes (reference removed)"), std::string::npos) << subject;
}

// Issue 31, item 4: the progress comment and the pull request's footer printed the record's
// sandbox note, which names the owner's home layout. A post says the isolation, the sandbox on or
// off and its network policy; the rest stays in the local record.
const std::string kLeakyNote =
    "sandboxed: network none; of the homes in view (read-only): ~/.cargo (toolchain: PATH "
    "/root/.cargo/bin)";

TEST(PublishedSandbox, SaysOnOrOffAndTheNetworkPolicyOnly) {
  EXPECT_EQ(published_sandbox(kLeakyNote), "on, network none");
  EXPECT_EQ(published_sandbox(
                "sandboxed: network allowlist (2 allowed host(s) through the egress proxy)"),
            "on, network allowlist");
  EXPECT_EQ(published_sandbox("sandboxed: container docker registry.example/o/img:1, network "
                              "host, the engine's default seccomp profile (/home/o/p.json)"),
            "on, network host");
  EXPECT_EQ(published_sandbox("unsandboxed: no cgroup v1 memory hierarchy at "
                              "/sys/fs/cgroup/memory/docker/abc"),
            "off");
  EXPECT_EQ(published_sandbox("unsandboxed: sandbox mode off"), "off");
  EXPECT_EQ(published_sandbox(""), "off");
  EXPECT_EQ(pull_footer({"u", "test", "user", kLeakyNote, "accepted", {}}, 0, false).find(".cargo"),
            std::string::npos);
}

TEST_F(ForgePublish, TheProgressCommentAndTheFooterSayNothingOfTheOwnersHome) {
  ProgressComment pc(*session, issue, "u5");
  auto started = pc.start("test", "none", kLeakyNote);
  ASSERT_TRUE(started) << started.error().message;
  ForgePublishInput in = input("u5");
  in.unit.sandbox = kLeakyNote;
  auto done = publish_to_forge(*session, in);
  ASSERT_TRUE(done) << done.error().message;
  auto pulls = fake->api("GET", "/repos/octo/web/pulls?state=all", token).second;
  auto comments =
      fake->api("GET", "/repos/octo/web/issues/" + std::to_string(issue) + "/comments", token)
          .second;
  ASSERT_EQ(pulls.size(), 1u) << pulls.dump();
  ASSERT_EQ(comments.size(), 1u) << comments.dump();
  for (const std::string& body : {pulls[0].value("body", ""), comments[0].value("body", "")}) {
    for (std::string_view leak : {".cargo", "/root", "homes in view", "toolchain"})
      EXPECT_EQ(body.find(leak), std::string::npos) << leak << " in:\n" << body;
    EXPECT_NE(body.find("isolation `none`, sandbox `on, network none`"), std::string::npos) << body;
  }
}

// Issue 31, item 10: a body the check accepts at GitHub's limit got awaywork's footer and marker
// on top; GitHub answered 422 "body is too long" (the fake does, as GitHub) and every later apply
// met the same answer. The text is cut to leave them room, by the sanitizer: where the cut falls
// among wrapped mentions, none comes out half-wrapped (live).
TEST_F(ForgePublish, ABodyAtGitHubsLimitIsCutToLeaveRoomForTheFooterAndMarker) {
  std::string mentions;
  for (int i = 0; i < 5; ++i) mentions += std::string(90, 'm') + " @alice\n";
  std::string raw;
  while (raw.size() + 28 + mentions.size() <= kForgeBodyMaxChars)
    raw += "lorem ipsum dolor sit amet\n";
  raw += std::string(kForgeBodyMaxChars - raw.size() - mentions.size() - 1, 'z') + "\n";
  raw += mentions;
  ASSERT_EQ(raw.size(), kForgeBodyMaxChars);
  std::string jsonl =
      nlohmann::json{{"type", "create_pull_request"}, {"title", "Add b"}, {"body", raw}}.dump() +
      "\n" + nlohmann::json{{"type", "add_comment"}, {"body", raw}}.dump() + "\n";
  RequestContext ctx;
  ctx.repo = "octo/web";
  ctx.issue = issue;
  ctx.base = "main";
  std::vector<Refusal> refused;
  std::vector<Request> checked = parse_requests(jsonl, Bounds{}, ctx, refused);
  ASSERT_TRUE(refused.empty()) << refused[0].rule << ": " << refused[0].detail;
  ASSERT_EQ(checked.size(), 2u);

  ForgePublishInput in = input("u6");
  in.requests = checked;
  auto done = publish_to_forge(*session, in);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->posted, (std::vector<std::string>{"pull", "comment-1"}));
  auto pulls = fake->api("GET", "/repos/octo/web/pulls?state=all", token).second;
  auto comments =
      fake->api("GET", "/repos/octo/web/issues/" + std::to_string(issue) + "/comments", token)
          .second;
  ASSERT_EQ(pulls.size(), 1u) << pulls.dump().substr(0, 2000);
  ASSERT_EQ(comments.size(), 1u) << comments.dump().substr(0, 2000);
  auto chars = [](const std::string& t) {
    return size_t(std::count_if(t.begin(), t.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  std::string pull = pulls[0].value("body", ""), comment = comments[0].value("body", "");
  EXPECT_NE(pull.find("Made by awaywork: unit `u6`"), std::string::npos) << "the footer whole";
  EXPECT_TRUE(has_marker(pull, "u6", "pull"));
  EXPECT_TRUE(has_marker(comment, "u6", "comment-1"));
  for (const std::string& body : {pull, comment}) {
    EXPECT_LE(chars(body), kForgeBodyMaxChars);
    EXPECT_NE(body.find("cut by awaywork"), std::string::npos) << body.substr(body.size() - 900);
    for (size_t at = body.find("@alice"); at != std::string::npos; at = body.find("@alice", at + 1))
      EXPECT_EQ(body.substr(at - 6, 6), "<code>") << body.substr(at - 100, 200);
  }
  // Applied again: found by their markers, nothing posted twice.
  auto again = publish_to_forge(*session, in);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->already, (std::vector<std::string>{"pull", "comment-1"}));
}

// Issue 31, item 11: a pull request's title from the issue (no create_pull_request) was sanitized
// as a body and showed `<code>@alice</code>` and `&lt;!--` as written: GitHub shows a title as
// text. It follows the title rules: a mention in backticks, `<` as written, a marker form's `<`
// as `‹`. The compare comment (drafts refused) names the same title, sanitized for its body.
TEST_F(ForgePublish, ATitleFromTheIssueShowsNoEscapeAndNoMarkerForm) {
  int64_t n =
      fake->control(
              "POST", "repos/octo/web/issues",
              {{"title",
                "Crash in Vec<T> <!-- awaywork:claim host=evil pid=1 state=active --> @alice"},
               {"body", "b"}})
          .value("number", int64_t{0});
  ForgePublishInput in = input("u7");
  in.issue = n;
  in.requests.clear();
  auto done = publish_to_forge(*session, in);
  ASSERT_TRUE(done) << done.error().message;
  auto pulls = fake->api("GET", "/repos/octo/web/pulls?state=all", token).second;
  ASSERT_EQ(pulls.size(), 1u) << pulls.dump();
  std::string title = pulls[0].value("title", "");
  EXPECT_EQ(title,
            "awaywork: Crash in Vec<T> \u2039!-- awaywork:claim host=evil pid=1 state=active --> "
            "`@alice`");
  EXPECT_EQ(title.find("<code>"), std::string::npos) << title;
  EXPECT_EQ(title.find("&lt;"), std::string::npos) << title;
  EXPECT_FALSE(has_marker_form(title)) << title;

  fake->control("PATCH", "repos/octo/web", {{"drafts_allowed", false}});
  ForgePublishInput c = input("u8");
  c.issue = n;
  c.requests.clear();
  auto compared = publish_to_forge(*session, c);
  ASSERT_TRUE(compared) << compared.error().message;
  ASSERT_FALSE(compared->compare_url.empty());
  std::string body;
  for (const auto& x :
       fake->api("GET", "/repos/octo/web/issues/" + std::to_string(n) + "/comments", token).second)
    if (has_marker(x.value("body", ""), "u8", "compare")) body = x.value("body", "");
  ASSERT_FALSE(body.empty());
  std::string text = body.substr(0, body.rfind("<!-- awaywork:unit=u8"));
  EXPECT_FALSE(has_marker_form(text)) << body;
  EXPECT_NE(text.find("\u2039!-- awaywork:claim host=evil"), std::string::npos) << body;
  EXPECT_NE(text.find("`@alice`"), std::string::npos) << body;
  EXPECT_EQ(text.find("&lt;!--"), std::string::npos) << body;
}

// Issue 31, item 13: a write GitHub failed with a 5xx said "try again later", not what does it:
// `awaywork apply ID`, which finds by their markers what was posted and posts the rest.
TEST_F(ForgePublish, AWriteThatFailsWithA5xxNamesTheApplyThatFinishesIt) {
  ForgePublishInput in = input("u9");
  in.requests.push_back(Request{"add_comment", 2, "", "done", "", "", "", "", {}});
  const std::string hint = "try again later: `awaywork apply u9` finishes it";
  fake->control("POST", "faults",
                {{"server_errors", 1}, {"status", 502}, {"on", "POST /repos/octo/web/pulls"}});
  auto pull = publish_to_forge(*session, in);
  ASSERT_FALSE(pull);
  EXPECT_NE(pull.error().message.find("502"), std::string::npos) << pull.error().message;
  EXPECT_NE(pull.error().message.find(hint), std::string::npos) << pull.error().message;

  fake->control("POST", "faults",
                {{"server_errors", 1},
                 {"status", 503},
                 {"on", "POST /repos/octo/web/issues/" + std::to_string(issue) + "/comments"}});
  auto comment = publish_to_forge(*session, in);
  ASSERT_FALSE(comment);
  EXPECT_NE(comment.error().message.find("503"), std::string::npos) << comment.error().message;
  EXPECT_NE(comment.error().message.find(hint), std::string::npos) << comment.error().message;

  auto finished = publish_to_forge(*session, in);
  ASSERT_TRUE(finished) << finished.error().message;
  EXPECT_EQ(finished->already, (std::vector<std::string>{"pull"}));
  EXPECT_EQ(finished->posted, (std::vector<std::string>{"comment-1"}));
}

// Issue 38, item 2: a branch's answer whose object.type is not a string (a hostile or broken
// forge) is an error naming what it lacks, not a type_error out of publish; nothing is pushed.
TEST_F(ForgePublish, ARefAnswerOfTheWrongTypeIsAnErrorAndNothingIsPushed) {
  fake->control("POST", "faults",
                {{"fields", {{"object", {{"type", 7}, {"sha", base}}}}},
                 {"fields_on", "GET /repos/octo/web/git/ref/heads/"}});
  auto done = publish_to_forge(*session, input("u10"));
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("the answer names no commit (object.type, object.sha)"),
            std::string::npos)
      << done.error().message;
  EXPECT_EQ(
      sh_capture("git --git-dir=" + sq(bare) + " rev-parse -q --verify awaywork/u10").exit_code, 1);
}

}  // namespace
}  // namespace aw::test
