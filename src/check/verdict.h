// The verdict of the output check: accepted or refused, with every reason. Apply publishes only
// an accepted verdict and only the paths listed in it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "check/requests.h"

namespace aw {

// One reason for refusing. `rule` is a stable short id (see README of the room / rules.md);
// `line` is 1-based in the patch or the requests file, 0 when the reason is about the whole input.
struct Refusal {
  std::string rule;
  std::string path;  // the patch path it is about, "" if none
  int line = 0;
  std::string detail;  // one sentence for a human; never contains a secret
  std::string source;  // "patch", "requests" or "bounds"
};

struct PatchStats {
  size_t bytes = 0;
  size_t files = 0;
  size_t added_lines = 0;
  size_t removed_lines = 0;
};

struct Verdict {
  bool accepted = false;
  std::vector<Refusal> refusals;
  std::vector<std::string> paths;    // checked changed paths, in patch order (apply compares)
  std::vector<std::string> omitted;  // untracked binaries collect left out (passed through)
  std::vector<Request> requests;     // sanitized, counted requests (empty when refused)
  PatchStats stats;
};

std::string render_text(const Verdict& v);
nlohmann::json to_json(const Verdict& v);

}  // namespace aw
