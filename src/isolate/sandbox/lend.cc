// Lending a phase its program: the view holds the system trees and the unit's folders, so a
// program elsewhere (a test's script in /tmp, a tool in the owner's build tree, an npm prefix
// under /var/cache) would be missing inside.
#include "isolate/sandbox/plan.h"
#include "isolate/sandbox/view.h"
#include "proc/capture.h"

namespace aw {

void lend_program(const std::string& argv0, const std::string& path_value, SandboxPlan& plan) {
  std::string given = argv0;
  if (!argv0.empty() && argv0.find('/') == std::string::npos) {
    auto found = find_program(argv0, path_value);
    given = found ? *found : std::string();
  }
  sandbox::lend_install(given, "program", plan);
}

}  // namespace aw
