// A GitLab merge request as the follow-up reads it (issue 29), no server: a failed pipeline's
// failing jobs, a merge request's reference, its discussions as threads and conversation.
#include <gtest/gtest.h>

#include "check/requests.h"
#include "forge/gitlab/mr_source.h"
#include "forge/gitlab/pipeline.h"

#include "gitlab_fixture.h"

namespace aw::test {
namespace {

TEST(GitlabMr, AFailedPipelinesJobsThatMayNotFailAreItsFailingChecks) {
  nlohmann::json jobs = nlohmann::json::array(
      {{{"id", 1}, {"name", "build"}, {"stage", "build"}, {"status", "success"}},
       {{"id", 2},
        {"name", "lint"},
        {"stage", "test"},
        {"status", "failed"},
        {"allow_failure", true},
        {"failure_reason", "script_failure"}},
       {{"id", 3},
        {"name", "test"},
        {"stage", "test"},
        {"status", "failed"},
        {"failure_reason", "script_failure"},
        {"web_url", "https://gitlab.example/j/3"}},
       {{"id", 5},
        {"name", "test"},
        {"stage", "test"},
        {"status", "failed"},
        {"failure_reason", "job_execution_timeout"}},
       {{"id", 4}, {"name", "deploy"}, {"stage", "deploy"}, {"status", "canceled"}}});
  auto failing = gitlab_failing_jobs_from_json(jobs);
  ASSERT_TRUE(failing) << failing.error().message;
  ASSERT_EQ(failing->size(), 1u);  // the retried test job's newest; lint may fail
  EXPECT_EQ((*failing)[0].id, 5);
  EXPECT_EQ((*failing)[0].name, "test");
  EXPECT_EQ((*failing)[0].kind, "job");
  EXPECT_EQ((*failing)[0].conclusion, "failed");
  EXPECT_EQ((*failing)[0].summary, "stage test; job_execution_timeout");
  EXPECT_FALSE(gitlab_failing_jobs_from_json(nlohmann::json::object()));
}

// The pipeline judged is the merge request's own (security review L1): its head_pipeline when on
// its head and of this project; else, of the head commit's pipelines (newest first), the newest
// whose ref is its source branch or refs/merge-requests/IID/head. A newer pipeline on the same
// commit from another ref (a Developer's, with variables and failing jobs of their choosing) is
// never it; a fork's source branch name is no ref of this project's.
TEST(GitlabMr, ThePipelineJudgedIsTheMergeRequestsOwnNeverAnotherRefsOnTheSameCommit) {
  aw::ForgePull mr;
  mr.number = 7;
  mr.head_ref = "awaywork/one";
  mr.head_sha = "1111111111111111111111111111111111111111";
  mr.head_repo = mr.base_repo = "#42";
  auto pl = [&](int64_t id, const std::string& ref, const std::string& status) {
    return nlohmann::json{
        {"id", id}, {"ref", ref}, {"sha", mr.head_sha}, {"status", status}, {"project_id", 42}};
  };
  nlohmann::json mj = {{"iid", 7}, {"head_pipeline", pl(10, "awaywork/one", "success")}};
  auto head = gitlab_mr_head_pipeline(mr, mj);
  ASSERT_TRUE(head) << head.error().message;
  ASSERT_TRUE(head->has_value());
  EXPECT_EQ((*head)->id, 10);
  EXPECT_EQ((*head)->status, "success");
  // Another commit's head_pipeline (the head moved since), a fork project's, none: not it.
  mj["head_pipeline"]["sha"] = "2222222222222222222222222222222222222222";
  EXPECT_FALSE(gitlab_mr_head_pipeline(mr, mj).value().has_value());
  mj["head_pipeline"] = pl(10, "awaywork/one", "success");
  mj["head_pipeline"]["project_id"] = 99;
  EXPECT_FALSE(gitlab_mr_head_pipeline(mr, mj).value().has_value());
  mj["head_pipeline"] = nullptr;
  EXPECT_FALSE(gitlab_mr_head_pipeline(mr, mj).value().has_value());
  EXPECT_FALSE(gitlab_mr_head_pipeline(mr, {{"iid", 7}}).value().has_value());
  mj["head_pipeline"] = "garbage";
  EXPECT_FALSE(gitlab_mr_head_pipeline(mr, mj));

  // The list: the newest is another ref's failed pipeline on the same commit; the merge
  // request's own (its branch's) passed.
  nlohmann::json list = nlohmann::json::array(
      {pl(30, "main", "failed"), pl(29, "refs/merge-requests/99/head", "failed"),
       pl(20, "awaywork/one", "success"), pl(19, "refs/merge-requests/7/head", "failed")});
  auto own = gitlab_mr_pipeline_from_list(mr, list);
  ASSERT_TRUE(own) << own.error().message;
  ASSERT_TRUE(own->has_value());
  EXPECT_EQ((*own)->id, 20);
  EXPECT_EQ((*own)->status, "success");
  // From a fork: its branch's name here is no ref of the merge request's; its merge request ref
  // is.
  mr.head_repo = "#77";
  own = gitlab_mr_pipeline_from_list(mr, list);
  ASSERT_TRUE(own && own->has_value());
  EXPECT_EQ((*own)->id, 19);
  // Only other refs: none (no failing job, no follow-up).
  list = nlohmann::json::array({pl(30, "main", "failed")});
  own = gitlab_mr_pipeline_from_list(mr, list);
  ASSERT_TRUE(own);
  EXPECT_FALSE(own->has_value());
  EXPECT_FALSE(gitlab_mr_pipeline_from_list(mr, nlohmann::json::object()));
}

TEST(GitlabMr, AMergeRequestsReferenceIsNameBangN) {
  auto a = parse_mr_ref("app!3");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->repo, "app");
  EXPECT_EQ(a->number, 3);
  auto b = parse_mr_ref("grp/sub/app!12");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->repo, "grp/sub/app");
  EXPECT_EQ(b->number, 12);
  auto c = parse_mr_ref("app#4");  // GitHub's form is taken too
  ASSERT_TRUE(c);
  EXPECT_EQ(c->number, 4);
  for (std::string bad : {"!3", "app!", "app!03", "app!x", "app!-1"})
    EXPECT_FALSE(parse_mr_ref(bad)) << bad;
}

// GitLab's discussions as the follow-up task reads them: an unresolved diff discussion is a
// thread (its replies point at its first note) under its file and line; a lone note or a thread
// without a position is conversation; system notes are nobody's words; a resolved diff discussion
// asks for nothing.
TEST(GitlabMr, DiscussionsBecomeThreadsAndConversation) {
  auto user = [](int id, const std::string& name) {
    return nlohmann::json{{"id", id}, {"username", name}};
  };
  auto note = [&](int id, const std::string& who, int uid, const std::string& body,
                  nlohmann::json type, nlohmann::json position, bool system = false,
                  bool resolved = false) {
    nlohmann::json n = {{"id", id},
                        {"type", type},
                        {"body", body},
                        {"author", user(uid, who)},
                        {"created_at", "2026-12-06T02:40:00.123Z"},
                        {"updated_at", "2026-12-06T02:40:00.123Z"},
                        {"system", system},
                        {"resolvable", !position.is_null()},
                        {"resolved", resolved}};
    if (!position.is_null()) n["position"] = position;
    return n;
  };
  nlohmann::json at1 = {{"new_path", "b.txt"}, {"new_line", 1}, {"old_path", "b.txt"}};
  nlohmann::json gone = {
      {"new_path", "c.txt"}, {"new_line", nullptr}, {"old_path", "c.txt"}, {"old_line", 7}};
  nlohmann::json list = nlohmann::json::array(
      {{{"id", "aa11"},
        {"individual_note", false},
        {"notes",
         {note(1, "dev", 5, "Say BRAVO.", "DiffNote", at1),
          note(2, "maint", 6, "Agreed.", "DiffNote", at1)}}},
       {{"id", "bb22"},
        {"individual_note", false},
        {"notes", {note(3, "dev", 5, "Removed line?", "DiffNote", gone)}}},
       {{"id", "cc33"},
        {"individual_note", true},
        {"notes", {note(4, "maint", 6, "General.", nullptr, nullptr)}}},
       {{"id", "dd44"},
        {"individual_note", true},
        {"notes", {note(5, "dev", 5, "added 1 commit", nullptr, nullptr, true)}}},
       {{"id", "ee55"},
        {"individual_note", false},
        {"notes", {note(6, "dev", 5, "Done already.", "DiffNote", at1, false, true)}}}});
  auto parsed = gitlab_discussions_from_json(list, "GET discussions");
  ASSERT_TRUE(parsed) << parsed.error().message;
  MrNotes n = mr_notes(*parsed);
  ASSERT_EQ(n.threads.size(), 3u);
  EXPECT_EQ(n.threads[0].path, "b.txt");
  EXPECT_EQ(n.threads[0].line, 1);
  EXPECT_EQ(n.threads[0].in_reply_to, 0);
  EXPECT_EQ(n.threads[1].in_reply_to, 1);
  EXPECT_EQ(n.threads[1].body, "Agreed.");
  EXPECT_EQ(n.threads[2].path, "c.txt");
  EXPECT_EQ(n.threads[2].line, 7);                             // a removed line: the old side's
  EXPECT_EQ(n.threads[0].created_at, "2026-12-06T02:40:00Z");  // whole seconds, as `since`
  ASSERT_EQ(n.conversation.size(), 1u);
  EXPECT_EQ(n.conversation[0].body, "General.");
  EXPECT_EQ(n.resolved, 1);
  EXPECT_EQ(n.discussion_of, (std::map<int64_t, std::string>{{1, "aa11"}, {3, "bb22"}}));
  EXPECT_EQ(n.ids.at("dev"), 5);
  EXPECT_EQ(n.ids.at("maint"), 6);
}

}  // namespace
}  // namespace aw::test
