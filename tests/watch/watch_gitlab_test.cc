// watch's rules on a GitLab project (issue 29, item 6), against the fake GitLab
// (tests/fakes/fake_gitlab.py): GitLabWatchReader hands GitLab's issues, label events and notes to
// the same trigger and claim rules as GitHub's. A label added by a Developer is an admitted
// trigger, a Guest's is refused, a second pass finds nothing new and an idle poll is a 304; a
// claim note posted and edited by awaywork's user reads back as its claim, and a Guest's copy of
// the marker does not.
#include <gtest/gtest.h>

#include <ctime>

#include "../fakes/fake_gitlab.h"
#include "../git/git_fixture.h"
#include "base/fs.h"
#include "forge/admission.h"
#include "forge/gitlab/watch_source.h"
#include "watch/claim.h"
#include "watch/triggers.h"

namespace aw::test {
namespace {

const std::string kProject = "grp/sub/app";

class NoWaitClock : public Clock {
 public:
  int64_t now_seconds() override { return ::time(nullptr); }
  void sleep(std::chrono::milliseconds) override {}
};

class WatchGitlabTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitlab> fake;
  NoWaitClock clock;
  std::string token;

  void SetUp() override {
    fake = std::make_unique<FakeGitlab>(tmp.path);
    ASSERT_FALSE(fake->api_url().empty()) << fake->error();
    std::string src = tmp.path + "/src";
    sh("git init -q -b main " + sq(src));
    sh("printf 'alpha\\n' > a.txt && git add a.txt && git -c user.name=t "
       "-c user.email=t@example.com commit -qm init",
       src);
    token = fake->add_user("aw-bot");
    ASSERT_TRUE(fake->add_project(kProject, src).is_object()) << fake->error();
    fake->member("grp", "aw-bot", 30);
    fake->member(kProject, "dev", 30);
    fake->member(kProject, "guest", 10);
  }

  std::unique_ptr<GitLabSession> session() {
    GitLabOptions opt;
    opt.api_url = fake->api_url();
    opt.credential = "GITLAB_TOKEN";
    auto t = beast_transport(
        TransportOptions{fake->api_url(), "", std::chrono::seconds(10), std::chrono::seconds(60)});
    EXPECT_TRUE(t) << t.error().message;
    ForgeConfig forge;
    forge.name = "lab";
    forge.kind = "gitlab";
    forge.api_url = fake->api_url();
    forge.credential = "GITLAB_TOKEN";
    auto s = std::unique_ptr<GitLabSession>(new GitLabSession{
        forge, kProject, token, GitLab(opt, token, std::move(*t), clock), {}, {}, {}});
    auto me = s->gl.get("/user");
    EXPECT_TRUE(me) << me.error().message;
    s->self = *gitlab_user_from_json(*me, "GET /user");
    return s;
  }

  // An issue by `user`, labelled `label` by the same user (a resource label event naming them).
  int64_t labelled_issue(const std::string& user, const std::string& label) {
    int64_t iid = fake->control("POST", "projects/" + kProject + "/issues",
                                {{"username", user}, {"title", "fix it"}, {"description", "x"}})
                      .value("iid", int64_t{0});
    fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/labels",
                  {{"username", user}, {"add", nlohmann::json::array({label})}});
    return iid;
  }

  TriggerScan scan(GitLabSession& s, GitLabWatchReader& rd, int64_t iid, Seen seen) {
    auto events = rd.label_events(iid);
    EXPECT_TRUE(events) << events.error().message;
    auto comments = rd.comments(iid);
    EXPECT_TRUE(comments) << comments.error().message;
    Admission adm(TrustConfig{}, 0, s.self.user.login, rd.roles(), ::time(nullptr));
    WatchRepoConfig spec;
    spec.repo = "app";
    return scan_triggers(spec, events ? *events : nlohmann::json(),
                         comments ? *comments : nlohmann::json(), seen,
                         [&](const ForgeUser& u) { return adm.check(u); });
  }
};

TEST_F(WatchGitlabTest, ADevelopersLabelIsATriggerAGuestsIsNotAndASecondPassFindsNothing) {
  int64_t by_dev = labelled_issue("dev", "awaywork");
  int64_t by_guest = labelled_issue("guest", "awaywork");
  auto s = session();
  GitLabWatchReader rd(*s);
  auto issues = rd.changed_issues("");
  ASSERT_TRUE(issues) << issues.error().message;
  ASSERT_EQ(issues->size(), 2u);

  TriggerScan dev = scan(*s, rd, by_dev, Seen{});
  ASSERT_EQ(dev.found.size(), 1u);
  EXPECT_EQ(dev.found[0].kind, "label");
  EXPECT_EQ(dev.found[0].actor, "dev");
  EXPECT_TRUE(dev.admitted()) << dev.found[0].reason;
  EXPECT_GT(dev.found[0].at, 0);

  TriggerScan guest = scan(*s, rd, by_guest, Seen{});
  ASSERT_EQ(guest.found.size(), 1u);
  EXPECT_EQ(guest.found[0].actor, "guest");
  EXPECT_FALSE(guest.admitted()) << guest.found[0].reason;

  // The second pass: what was seen is passed over, and the unchanged list is a 304.
  EXPECT_TRUE(scan(*s, rd, by_dev, dev.seen).found.empty());
  EXPECT_TRUE(scan(*s, rd, by_guest, guest.seen).found.empty());
  int before = s->gl.stats().not_modified;
  auto again = rd.changed_issues("");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *issues);
  EXPECT_GT(s->gl.stats().not_modified, before);
}

TEST_F(WatchGitlabTest, AClaimNoteReadsBackAsAwayworksClaimAndAGuestsCopyDoesNot) {
  int64_t iid = labelled_issue("dev", "awaywork");
  auto s = session();
  GitLabWatchReader rd(*s);
  Claimant me{"host-a", 4242};
  int64_t since = ::time(nullptr);
  auto id = rd.post_note(iid, claim_body(me, since, "active", "running the unit"));
  ASSERT_TRUE(id) << id.error().message;
  // A Guest pastes the same text: the marker is only trusted from awaywork's own user.
  fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/notes",
                {{"username", "guest"}, {"body", claim_body({"host-b", 1}, since, "active", "")}});
  // GitLab's system notes are nobody's words: never a comment, so never a claim or a command.
  fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/notes",
                {{"username", "dev"}, {"body", "/awaywork"}, {"system", true}});
  std::string self = s->self.user.login;
  auto trusted = [&](const ForgeUser& u) { return u.login == self; };

  auto comments = rd.comments(iid);
  ASSERT_TRUE(comments) << comments.error().message;
  EXPECT_EQ(comments->size(), 2u);
  auto claims = claims_in(*comments, trusted);
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].comment_id, *id);
  EXPECT_EQ(claims[0].host, "host-a");
  EXPECT_EQ(claims[0].state, "active");

  ASSERT_TRUE(rd.edit_note(iid, *id, claim_body(me, since, "ended", "done")));
  comments = rd.comments(iid);
  ASSERT_TRUE(comments) << comments.error().message;
  claims = claims_in(*comments, trusted);
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].state, "ended");
}

}  // namespace
}  // namespace aw::test
