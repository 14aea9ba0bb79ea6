// The agent's session kept between the units of one pull request (issue 26 item 6,
// docs/pull-requests.md#continuing-the-agents-session): after a unit of the pull request, the
// provider's session files (provider/resume.h) are copied from the unit's HOME into the state
// folder, in a folder of that pull request's own; the next follow-up unit of the same pull request
// gets them in its fresh HOME and its CLI the resume flag.
//
//   keep_agent_session({state, pull_url, spec}, paths.home, literals, notes);    // unit's end
//   AW_TRY(std::string id, hand_agent_session({state, pull_url, spec}, home, clone, notes));
//
// A session file is the agent's and hostile: awaywork never runs it and never reads it for what it
// says (only its name and size); no link is followed on either side, only regular files are
// copied, and each copy is capped. The kept folder is owner-only (0700, files 0600) and redacted
// of the unit's secrets.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "provider/provider.h"

namespace aw {

struct SessionCaps {
  size_t file_bytes = 16u << 20;   // a larger file is refused
  size_t total_bytes = 32u << 20;  // per pull request (the rounds' HOME snapshot takes 64 MiB)
  size_t files = 16;               // per pull request: the newest files up to this
  size_t pulls = 200;              // pull requests kept: the least recently kept go first
  size_t walk_entries = 10000;     // entries looked at under HOME before giving up
};

struct SessionKey {
  std::string state_dir;  // STATE
  std::string pull_url;   // the pull request's address: host, repository and number in one
  const ProviderSpec* spec = nullptr;
};

// STATE/sessions/<sha256 of the pull request's address, 32 hex digits>: one folder per pull
// request, never shared with another one or another repository's.
std::string session_folder(const SessionKey& k);

// The provider's session files under home copied into the pull request's folder, replacing what
// was kept for it (when the unit left none, the earlier stays). Links, fifos and other special
// files are refused, a file larger than caps.file_bytes too, each with a note; the newest files
// are kept up to caps.files and caps.total_bytes. Each file is redacted of literals.
Status keep_agent_session(const SessionKey& k, const std::string& home,
                          const std::vector<std::string>& literals, std::vector<std::string>& notes,
                          const SessionCaps& caps = {});

// What was kept for the pull request (for this provider) written into home, where the CLI finds
// it for the clone at clone (the path the agent phase works in). Returns the id of the newest
// session, "" when none was kept. home is the unit's fresh HOME: no unit process has run yet.
Result<std::string> hand_agent_session(const SessionKey& k, const std::string& home,
                                       const std::string& clone, std::vector<std::string>& notes,
                                       const SessionCaps& caps = {});

}  // namespace aw
