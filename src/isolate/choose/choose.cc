#include "isolate/choose/choose.h"

#include "isolate/container/isolator_container.h"
#include "isolate/none/isolator_none.h"
#include "isolate/sandbox/limits_source.h"
#include "isolate/user/isolator_user.h"

namespace aw {

Result<std::unique_ptr<Isolator>> make_isolator(const Config& cfg, const IsolationSpec& spec,
                                                const std::string& unit_id) {
  switch (cfg.isolation) {
    case Isolation::none:
      return make_none_isolator(cfg, spec, unit_id);
    case Isolation::user:
      return make_user_isolator(cfg, spec, unit_id);
    case Isolation::container:
      return make_container_isolator(cfg, spec, unit_id);
  }
  return fail("unknown isolation");
}

std::vector<std::string> isolation_notes(const Config& cfg, const std::string& sandbox_note) {
  if (sandbox_note.rfind("sandboxed", 0) == 0 && cfg.isolation != Isolation::container)
    return {describe_limits(cfg.sandbox.limits.enabled)};
  return {};
}

}  // namespace aw
