// What watch asks of a forge to claim an issue and say how its unit goes (issue 29 item 6, issue
// 40): the issue's comments in GitHub's shape (claim.h's claims_in reads them), posting, editing
// and deleting awaywork's own comment, the issue's labels, whose words count (roles, and
// awaywork's own login). GitHub and GitLab each implement it once; claim.cc and the watcher's
// units speak only to it, so the claim rules are one for both forges and never written twice.
//
//   std::unique_ptr<WatchForge> f = github_watch_forge(session);   // or gitlab_watch_forge(...)
//   AW_TRY(ClaimResult c, claim_issue(*f, 42, me, ttl, now, 0, trusted));
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/admission.h"

namespace aw {

struct ForgeSession;
struct GitLabSession;
class GitLabWatchReader;

class WatchForge {
 public:
  virtual ~WatchForge() = default;
  // The token's login: awaywork's own, whose claims are trusted and whose words never trigger.
  virtual const std::string& self_login() const = 0;
  // Admission's role lookup on the repository.
  virtual RoleLookup roles() = 0;
  // The issue's comments, oldest first, as GitHub's {id, body, user: {login, type}, created_at,
  // updated_at}; a forge's own records of changes (GitLab's system notes) are never among them.
  virtual Result<nlohmann::json> comments(int64_t issue) = 0;
  // awaywork's comment: posted (its id), edited, deleted (one already gone is not an Error).
  virtual Result<int64_t> post_comment(int64_t issue, const std::string& body) = 0;
  virtual Status edit_comment(int64_t issue, int64_t comment_id, const std::string& body) = 0;
  virtual Status delete_comment(int64_t issue, int64_t comment_id) = 0;
  // Labels on the issue (one that is not there is not an Error when removing).
  virtual Status add_labels(int64_t issue, const std::vector<std::string>& labels) = 0;
  virtual Status remove_label(int64_t issue, const std::string& label) = 0;
  // What the forge calls the change a unit publishes ("pull request", "merge request").
  virtual const char* change_name() const = 0;
  // A comment of watch's on pull or merge request N (a follow-up limit reached): GitHub's issue
  // comment, GitLab's merge request note (made inert, its marker kept).
  virtual Status post_on_change(int64_t number, const std::string& body) = 0;
  // The same forge speaking of pull or merge requests: its comments, post, edit and delete take
  // a pull request's number (GitHub: the same issue comments, one number for both) or a merge
  // request's iid (GitLab: the merge request's notes, system notes left out, made inert). What
  // follow-up claims are written with (claim.h claim_follow_up); its labels are not used.
  virtual std::unique_ptr<WatchForge> changes() = 0;
};

// Both keep a reference: the session (and the reader) must outlive the forge.
std::unique_ptr<WatchForge> github_watch_forge(ForgeSession& s);
std::unique_ptr<WatchForge> gitlab_watch_forge(GitLabSession& s, GitLabWatchReader& reader);

}  // namespace aw
