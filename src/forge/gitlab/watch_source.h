// What `watch` reads and writes on a GitLab project (issue 29, item 6), in the shapes its trigger
// and claim rules already read (watch/triggers.h and watch/claim.h were written on GitHub's
// answers): a label event as an issue event {id, event: labeled|unlabeled, label: {name}, actor:
// {login, type}, created_at}, a user note as a comment {id, body, user: {login, type},
// created_at, updated_at}. So one set of rules judges both forges and GitHub's path is unchanged.
// GitLab's system notes ("added ~bug label") are nobody's words and never become comments: a
// trigger is read from resource_label_events, which names who added the label.
//
//   GitLabWatchReader rd(session);
//   AW_TRY(json issues, rd.changed_issues("2026-12-06T03:00:00Z"));   // conditional (ETag)
//   AW_TRY(json events, rd.label_events(iid));  AW_TRY(json comments, rd.comments(iid));
//   scan_triggers(spec, events, comments, seen, [&](auto& u) { return adm.check(u); })
//   with Admission(trust, stop_after, self, rd.roles(), now)
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/admission.h"
#include "forge/gitlab/session.h"

namespace aw {

// A GitLab issue as watch's poll state reads a listed GitHub issue (watch/poll_state.h's
// issue_fingerprint): {number: iid, updated_at, state, labels: [{name}], assignees: [{login}],
// comments: user_notes_count}.
nlohmann::json gitlab_issue_as_listed(const nlohmann::json& issue);

// The logins a system note says were assigned ("assigned to @a, @b and unassigned @c" -> a, b);
// empty when it is not an assignment.
std::vector<std::string> gitlab_assigned_in(const std::string& system_note);

// A GitLab pipeline as the poll state reads a listed issue: {number: its id, updated_at, state:
// its status, ref, sha}. Its status and updated_at are what change when it starts or ends.
nlohmann::json gitlab_pipeline_as_listed(const nlohmann::json& pipeline);

class GitLabWatchReader {
 public:
  explicit GitLabWatchReader(GitLabSession& s);

  // The project's open issues updated after `updated_after` (ISO 8601; "" = all), oldest change
  // first, every page. Each GET carries If-None-Match with the ETag of its last answer (the
  // client's cache), so an idle poll is a 304 that reuses the body.
  Result<nlohmann::json> changed_issues(const std::string& updated_after);
  // The project's pipelines updated after `updated_after` (ISO 8601, never ""), oldest change
  // first, every page, conditional as changed_issues' (GET .../pipelines?updated_after=T&
  // order_by=updated_at&sort=asc). One request a poll tells of every pipeline that started or
  // ended, for all of awaywork's merge requests at once: GitLab's merge request list carries no
  // head_pipeline (only GET .../merge_requests/:iid does), and a pipeline's end need not touch
  // the merge request's updated_at.
  Result<nlohmann::json> changed_pipelines(const std::string& updated_after);

  // What the watcher's last list of awaywork's open merge requests showed: each one's iid and
  // source branch, and whether the list held them all (it asked with no updated_after and filled
  // no page). The pipelines' poll matches a pipeline to its merge request by them.
  void remember_mrs(const nlohmann::json& mrs, bool whole);
  // The merge requests of awaywork's a pipeline may be the head pipeline of, by its ref: a merge
  // request pipeline's refs/merge-requests/IID/head (or /merge, /train), or a listed merge
  // request's source branch. nullopt: it cannot tell (the list was not whole and the ref is a
  // branch), so every known one is looked at; empty: none of awaywork's.
  std::optional<std::vector<int64_t>> pipeline_mrs(const nlohmann::json& listed_pipeline) const;
  const std::map<int64_t, std::string>& mr_branches() const { return mr_branches_; }
  bool mrs_whole() const { return mrs_whole_; }
  // GET .../issues/IID/resource_label_events as GitHub issue events.
  Result<nlohmann::json> label_events(int64_t iid);
  // GET .../issues/IID/notes, oldest first, as GitHub comments; system notes left out.
  Result<nlohmann::json> comments(int64_t iid);
  // The same one read, also as GitHub's "assigned" issue events: GitLab keeps no assignment
  // events, it writes a system note "assigned to @a, @b and unassigned @c" as the person who
  // assigned (a system note is GitLab's own record, never a user's words). Their ids are the
  // notes', a space apart from the label events'.
  struct Notes {
    nlohmann::json comments, assignments;
  };
  Result<Notes> notes(int64_t iid);
  // Admission's role lookup: the members API by the user ids the answers above carried (a login
  // never seen in them is "none": the members API is keyed by id, not by name).
  RoleLookup roles();

  // A claim note (watch/claim.h's claim_body) posted on the issue, and edited: awaywork's own
  // words, the note id for later edits.
  Result<int64_t> post_note(int64_t iid, const std::string& body);
  Status edit_note(int64_t iid, int64_t note_id, const std::string& body);
  // DELETE .../notes/ID: a note already gone is not an Error.
  Status delete_note(int64_t iid, int64_t note_id);
  // PUT .../issues/IID with add_labels and remove_labels (GitLab ignores one not there).
  Status change_labels(int64_t iid, const std::vector<std::string>& add,
                       const std::vector<std::string>& remove);

 private:
  GitLabSession& s_;
  std::shared_ptr<std::map<std::string, int64_t>> ids_;  // login -> GitLab user id
  std::map<int64_t, std::string> mr_branches_;           // iid -> source branch (remember_mrs)
  bool mrs_whole_ = false;
};

}  // namespace aw
