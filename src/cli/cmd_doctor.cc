// `awaywork doctor`: every prerequisite of the configured isolation, with the exact fix for each.
// The checks are their rooms' (doctor/checks/checks.h gathers them); this only parses, runs the
// configured isolation's and renders them.
#include <fmt/format.h>

#include "cli/commands.h"
#include "config/config.h"
#include "doctor/checks/checks.h"
#include "doctor/doctor.h"
#include "forge/gitlab/doctor_check.h"

namespace aw {

int cmd_doctor(const GlobalOptions& g, bool print_setup) {
  auto cfg = load_given_config(g.config);
  if (!cfg) {
    fmt::print(stderr, "awaywork doctor: {}\n", cfg.error().message);
    return kExitUsage;
  }
  if (print_setup) {
    auto setup = doctor_setup(*cfg);
    if (!setup) {
      fmt::print(stderr, "awaywork doctor: {}\n", setup.error().message);
      return kExitUsage;
    }
    fmt::print("{}", *setup);
    return kExitDone;
  }
  Registry reg = doctor_registry(*cfg);
  // Each kind: gitlab forge's token and its scopes (the forge's own check: it holds the token).
  for (const char* iso : {"none", "user", "container"})
    reg.add(iso, [&cfg] { return gitlab_checks(*cfg); });
  auto checks = reg.run(to_string(cfg->isolation));
  fmt::print("{}", g.json ? render_json(checks) + "\n" : render(checks));
  return all_ok(checks) ? kExitDone : kExitFailed;
}

}  // namespace aw
