// The forge as a source (DESIGN.md section 2): `run --issue NAME#N` becomes a unit request. The
// issue's forge repository is found, its forge opened, the issue and its admitted comments read
// and the task built (issue.h); the request carries the task and the issue as data (its number,
// title, address, author, the comments left out), and the session goes on to the unit's publisher
// and progress comment, so the forge is opened once.
//
//   AW_TRY(IssueRun r, issue_request(cfg, "web", 42));
//   ProgressObserver progress(*r.session, 42);
//   run_unit(cfg, r.request, progress, forge_publishers(r.session));
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/config.h"
#include "forge/issue.h"
#include "forge/session.h"
#include "unit/pipeline.h"

namespace aw {

struct IssueRun {
  RunRequest request;
  std::shared_ptr<ForgeSession> session;
};

// repo: as the command was given it (a repos: name or OWNER/REPO), kept as the request's repo.
// An Error (not a forge repository, a refused token, a missing issue, a pull request) means no
// unit is made; what the session spent until then is recorded.
Result<IssueRun> issue_request(const Config& cfg, const std::string& repo, int64_t number);

// The request both forges' issue_request make of issue number's work: repo as given, the task,
// the issue as data (source "issue", title, address, author) and a note counting what was left
// out. left_out_what is what the forge calls the comments left out ("comment(s)", "note(s)").
RunRequest issue_run_request(const std::string& repo, int64_t number, const IssueWork& work,
                             std::string_view left_out_what);

}  // namespace aw
