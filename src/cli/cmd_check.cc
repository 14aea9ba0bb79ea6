// `awaywork check`: the output check on files, for use in other CI.
#include "base/json_write.h"
#include "check/check.h"
#include "cli/commands.h"

namespace aw {

int cmd_check(const GlobalOptions& g, const CheckOptions& o) {
  if (!o.from.empty()) return cmd_check_artifact(g, o);
  if (o.bounds.empty() || o.patch.empty()) {
    fmt::print(stderr, "awaywork check: give --bounds F --patch F [--requests F], or --from DIR\n");
    return kExitUsage;
  }
  std::optional<std::string> requests;
  if (!o.requests.empty()) requests = o.requests;
  auto v = check_files(o.bounds, o.patch, requests);
  if (!v) {
    fmt::print(stderr, "awaywork check: {}\n", v.error().message);
    return kExitUsage;
  }
  if (g.json)
    fmt::print("{}\n", json_text(to_json(*v), 2));
  else
    fmt::print("{}", render_text(*v));
  return v->accepted ? kExitDone : kExitRefused;
}

}  // namespace aw
