// POST /api/v1/units: the JSON body of a new unit, checked field by field, and the `awaywork run`
// command line that runs it. Pure: fuzz/fuzz_serve_route.cc feeds it arbitrary bodies.
//   {"repo": "web", "prompt": "Fix the typo", "agent": "claude", "profile": "ci",
//    "base": "main", "unit_seconds": 600}     repo and prompt required, or
//   {"issue": "web#12", ...}                    the task built from that forge issue (run --issue)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"

namespace aw {

struct SubmitRequest {
  std::string repo, prompt, agent, profile, base;
  std::string issue;  // "NAME#N", "OWNER/REPO#N" or "GROUP/PROJECT#N"; repo, prompt empty
  std::optional<int> unit_seconds;
};

// The error says which field is wrong and what it must be; an agent or profile that the config
// does not define is named with the ones it does.
Result<SubmitRequest> parse_submit(const std::string& body, const Config& cfg);

// run --repo=R --prompt-file=F (or --issue=I) [--agent=A] [--profile=P] [--base=B]
// [--unit-seconds=N] --json
// (--key=value, so that a value starting with '-' stays a value).
std::vector<std::string> run_args(const SubmitRequest& r, const std::string& prompt_file);

// A fresh file name for a prompt: random hex (base/random.h; an error when the kernel gives no
// randomness, never a guessable name).
Result<std::string> new_prompt_name();

}  // namespace aw
