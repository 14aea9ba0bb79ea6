// The agent phase's provider side for one unit (DESIGN.md section 4): the provider's launch (argv,
// environment, per-unit state folders), the inference proxy that holds the model credential
// outside the isolation, the lent Codex login, and the transcript events parsed from the agent's
// output. Lives from just before the first phase to the end of the unit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "record/record.h"
#include "unit/steps.h"

namespace aw {

// The model credential of the agent's `inference:` upstream, read from the secret store before
// the unit's record exists (so the record is redacted of it from its first byte). "" when the
// agent names no upstream. A missing secret is an Error naming it and the fix.
Result<std::string> read_inference_credential(const Config& cfg, const Target& t);

// A built-in provider's CLI has a login for the unit (provider/login.h): an `inference:` upstream,
// a lent Codex login, or its own variable among the profile's vars and secrets or the owner
// variables the agent is handed. Checked before any phase; the Error says how to give one.
Status check_agent_login(const Target& t, const ResolvedProfile& profile);

class AgentSession {
 public:
  // Starts the proxy when the agent names `inference:` (reached through the isolator's bridge, or a
  // loopback port where the phase shares the host's network), issues the run token, lends the
  // Codex login when asked. literals gains the run token. follow_of: the address of the pull
  // request this unit follows up ("" = none); with the repository's `resume: true` the session
  // kept for it is put in the unit's HOME and the CLI told to continue it (session_keep.h).
  static Result<std::unique_ptr<AgentSession>> start(const Config& cfg, const Target& t,
                                                     const std::string& credential,
                                                     const RunDir& dir, const UnitPaths& paths,
                                                     Isolator& iso,
                                                     std::vector<std::string>& literals,
                                                     const std::string& follow_of = "");
  ~AgentSession();

  const Argv& argv() const;     // the agent phase's argv
  const EnvPairs& env() const;  // added to the agent phase's environment only
  // For the record: the agent phase's variables that carry the run token, and the lent login.
  std::vector<std::string> credential_names() const;
  // The agent phase's standard output; log_offset: the transcript's size before it writes them
  // (where the steps say their line begins). Steps go to runs/<id>/events.jsonl at once.
  void feed(std::string_view stdout_bytes, uint64_t log_offset);
  // The agent phase's output is over: its events are parsed to the end. Returns the text of its
  // last error event, redacted of the unit's literals ("" = none): what a failed phase's reason
  // carries, since the CLI's own words ("Not logged in") say more than its exit code.
  std::string phase_over();
  // The agent phase is over: its run token is refused from now on, so that a check phase (which
  // shares the unit's network) cannot use a token the agent left behind in the clone.
  void revoke();
  // Before the next agent round (the last round's token is revoked by now): a fresh run token
  // that shares the unit's proxy budget takes the last one's place in the agent's environment;
  // literals gains it. Nothing without a proxy. An error when no token could be made.
  Status next_round(std::vector<std::string>& literals);
  // The agent phase is over: revoke the run token, note the proxy's counts, save back a genuine
  // login refresh, write runs/<id>/events.json redacted of literals.
  void end(const RunDir& dir, const std::vector<std::string>& literals, UnitRecord& u);
  // The unit is over and its folders are awaywork's again (not lost): with `resume: true`, the
  // CLI's session files kept for the pull request the unit followed up, or opened
  // (u.pull_request), when an agent phase ran. A failure to keep is a note.
  void keep_session(UnitRecord& u, bool lost);

  struct State;

 private:
  explicit AgentSession(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace aw
