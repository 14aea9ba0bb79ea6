// `awaywork check`: the output check on files, for use in other CI.
#include "check/check.h"
#include "cli/commands.h"

namespace aw {

int cmd_check(const GlobalOptions& g, const CheckOptions& o) {
  std::optional<std::string> requests;
  if (!o.requests.empty()) requests = o.requests;
  auto v = check_files(o.bounds, o.patch, requests);
  if (!v) {
    fmt::print(stderr, "awaywork check: {}\n", v.error().message);
    return kExitUsage;
  }
  if (g.json)
    fmt::print("{}\n", to_json(*v).dump(2));
  else
    fmt::print("{}", render_text(*v));
  return v->accepted ? kExitDone : kExitRefused;
}

}  // namespace aw
