// Issue 29's idle figure (bench/README.md, docs/gitlab.md): `watch` with follow-ups and
// follow_ci on a GitLab project with three of awaywork's open merge requests. GitLab counts a
// 304 against the rate limit, so what an idle poll costs is its number of requests: the issue
// list, the merge request list and the project's pipelines changed since the last poll, N = 3,
// whatever the number of merge requests (before: 2 + 2 per merge request, each one's answer and
// its head's pipelines read every poll). A pipeline failing on one of them is still noticed, by
// the pipelines' list alone (it does not change the merge request list), and only that merge
// request is read. And the pipelines' list itself (GitLabWatchReader::changed_pipelines,
// pipeline_mrs) against the fake.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "watch/iso_time.h"
#include "watch_gitlab_fixture.h"

namespace aw::test {
namespace {

const std::string kApiProject = "/projects/grp%2Fsub%2Fapp";

class WatchGitlabIdleTest : public WatchGitlabMrTest {
 protected:
  std::vector<int64_t> extra;  // awaywork's other open merge requests

  void SetUp() override {
    WatchGitlabMrTest::SetUp();
    if (HasFatalFailure()) return;
    for (int k = 1; k <= 2; ++k) {
      std::string b = "awaywork/extra-" + std::to_string(k);
      git("branch " + b + " main");
      auto x = fake->control("POST", "projects/" + kProject + "/merge_requests",
                             {{"username", "aw-bot"}, {"source", b}, {"title", "Draft: extra"}});
      ASSERT_TRUE(x.is_object()) << fake->error();
      extra.push_back(x["iid"].get<int64_t>());
    }
    // follow_ci on (the fixture's config has follow-ups, not follow_ci).
    std::string file = tmp.path + "/a.yml";
    std::string cfg = slurp(file);
    std::string at = "    gitlab: " + kProject + "\n";
    size_t i = cfg.find(at);
    ASSERT_NE(i, std::string::npos) << cfg;
    cfg.insert(i + at.size(), "    follow_ci: true\n");
    ASSERT_TRUE(write_file(file, cfg));
  }

  // A finished pipeline on the branch's head: job `test` failed (it may not fail).
  void failed_pipeline() {
    auto p = fake->control(
        "POST", "projects/" + kProject + "/pipelines",
        {{"username", "dev"},
         {"ref", branch},
         {"status", "failed"},
         {"jobs", nlohmann::json::array({{{"name", "test"},
                                          {"status", "failed"},
                                          {"trace", "FAIL: b.txt should say BRAVO\n"}}})}});
    ASSERT_TRUE(p.is_object()) << fake->error();
  }

  // The API requests after `from` that count against the rate limit (an authenticated user's,
  // 304s included, as GitLab counts them), as "GET /path" and "?query".
  struct Asked {
    std::string request, query;
  };
  std::vector<Asked> counted_since(size_t from) {
    std::vector<Asked> out;
    nlohmann::json log = fake->log();
    for (size_t i = from; i < log.size(); ++i)
      if (log[i].value("kind", "") == "api" && log[i]["username"].is_string())
        out.push_back(
            {log[i]["method"].get<std::string>() + " " + log[i]["path"].get<std::string>(),
             log[i].value("query", "")});
    return out;
  }

  static int spawned(const nlohmann::json& log) {
    int n = 0;
    for (const auto& l : log) n += l.value("event", "") == "unit_spawned";
    return n;
  }

  static std::string dump(const std::vector<Asked>& asked) {
    std::string out;
    for (const Asked& a : asked) out += a.request + "?" + a.query + "\n";
    return out;
  }
};

TEST_F(WatchGitlabIdleTest,
       AnIdlePollAsksThreeListsWhateverTheMergeRequestsAndAFailedPipelineIsNoticed) {
  // Out of the seconds a change is looked at again in (watch/poll_state.h), then one pass that
  // examines every merge request once and starts the pipelines' list.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  nlohmann::json warm = watch_once("a");
  EXPECT_EQ(spawned(warm), 0) << warm.dump(1);

  // Idle: nothing changed on the forge. The session's start (GET /user, the project: once per
  // process, a long-running watch pays it once) aside, the pass asks the three lists, each once,
  // and reads no merge request and no pipeline of one.
  size_t from = fake->log().size();
  nlohmann::json idle = watch_once("a");
  EXPECT_EQ(spawned(idle), 0) << idle.dump(1);
  std::vector<Asked> asked = counted_since(from);
  std::multiset<std::string> poll;
  for (const Asked& a : asked) {
    if (a.request == "GET /user" || a.request == "GET " + kApiProject) continue;
    poll.insert(a.request);
    EXPECT_EQ(a.query.find("sha="), std::string::npos) << dump(asked);
  }
  const size_t kIdlePollRequests = 3;
  EXPECT_EQ(poll, (std::multiset<std::string>{"GET " + kApiProject + "/issues",
                                              "GET " + kApiProject + "/merge_requests",
                                              "GET " + kApiProject + "/pipelines"}))
      << dump(asked);
  EXPECT_LE(poll.size(), kIdlePollRequests) << dump(asked);

  // A pipeline fails on the head of the fixture's merge request: the merge request list shows
  // nothing new, the pipelines' list does; that merge request alone is read, and its follow-up
  // starts (follow_ci), as before.
  failed_pipeline();
  from = fake->log().size();
  nlohmann::json log = watch_once("a");
  auto admitted = mr_events(log, "trigger_admitted");
  ASSERT_EQ(admitted.size(), 1u) << log.dump(1);
  EXPECT_EQ(admitted[0]["kind"], "check");
  EXPECT_NE(admitted[0]["reason"].get<std::string>().find("test"), std::string::npos)
      << admitted[0].dump();
  EXPECT_EQ(mr_events(log, "unit_spawned").size(), 1u) << log.dump(1);
  asked = counted_since(from);
  for (int64_t n : extra) {
    std::string one = "GET " + kApiProject + "/merge_requests/" + std::to_string(n);
    for (const Asked& a : asked)
      EXPECT_NE(a.request.compare(0, one.size(), one), 0) << one << "\n" << dump(asked);
  }
}

class WatchGitlabPipelineListTest : public WatchGitlabTest {
 protected:
  nlohmann::json pipeline(const std::string& ref, const std::string& status) {
    auto p = fake->control(
        "POST", "projects/" + kProject + "/pipelines",
        {{"username", "dev"}, {"ref", ref}, {"sha", std::string(40, 'a')}, {"status", status}});
    EXPECT_TRUE(p.is_object()) << fake->error();
    return p;
  }
};

TEST_F(WatchGitlabPipelineListTest, ChangedPipelinesAreOneConditionalListMatchedToMrsByRef) {
  auto s = session();
  GitLabWatchReader rd(*s);
  std::string since = iso_utc(::time(nullptr) - 60);
  nlohmann::json branch = pipeline("awaywork/one", "failed");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  nlohmann::json of_mr = pipeline("refs/merge-requests/7/head", "success");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  nlohmann::json main = pipeline("main", "failed");
  nlohmann::json hostile = pipeline("refs/merge-requests/99999999999999999999/head", "failed");

  auto list = rd.changed_pipelines(since);
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 4u) << list->dump(1);
  std::vector<nlohmann::json> listed;
  for (const auto& p : *list) listed.push_back(gitlab_pipeline_as_listed(p));
  // Oldest change first, in the poll state's shape.
  EXPECT_EQ(listed[0]["number"], branch["id"]);
  EXPECT_EQ(listed[0]["state"], "failed");
  EXPECT_EQ(listed[0]["ref"], "awaywork/one");
  EXPECT_EQ(listed[0]["updated_at"], branch["updated_at"]);
  EXPECT_EQ(listed[1]["number"], of_mr["id"]);
  EXPECT_EQ(listed[2]["number"], main["id"]);
  // Asked again unchanged: a 304 (still one request, as GitLab counts it).
  int not_modified = s->gl.stats().not_modified;
  ASSERT_TRUE(rd.changed_pipelines(since));
  EXPECT_EQ(s->gl.stats().not_modified, not_modified + 1);
  // Only what changed after the time.
  auto later = rd.changed_pipelines(hostile["updated_at"].get<std::string>());
  ASSERT_TRUE(later) << later.error().message;
  EXPECT_TRUE(later->empty()) << later->dump(1);

  // Matched by ref: a merge request pipeline names its iid; a branch is a listed merge request's
  // source branch; with the list whole, any other is none of awaywork's.
  rd.remember_mrs(nlohmann::json::parse(R"([{"iid": 3, "source_branch": "awaywork/one"}])"), true);
  using Mrs = std::optional<std::vector<int64_t>>;
  EXPECT_EQ(rd.pipeline_mrs(listed[0]), Mrs(std::vector<int64_t>{3}));
  EXPECT_EQ(rd.pipeline_mrs(listed[1]), Mrs(std::vector<int64_t>{7}));
  EXPECT_EQ(rd.pipeline_mrs(listed[2]), Mrs(std::vector<int64_t>{}));
  // A ref's iid too long to be one is a branch name like any other.
  EXPECT_EQ(rd.pipeline_mrs(listed[3]), Mrs(std::vector<int64_t>{}));
  // A list that was not whole cannot say a branch is none of awaywork's: every one is looked at.
  rd.remember_mrs(nlohmann::json::parse(R"([{"iid": 3, "source_branch": "awaywork/one"}])"), false);
  EXPECT_EQ(rd.pipeline_mrs(listed[0]), Mrs(std::vector<int64_t>{3}));
  EXPECT_EQ(rd.pipeline_mrs(listed[2]), std::nullopt);
  EXPECT_EQ(rd.pipeline_mrs(listed[3]), std::nullopt);
}

}  // namespace
}  // namespace aw::test
