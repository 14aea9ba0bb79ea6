#include "unit/isolator.h"

namespace aw {

Result<std::unique_ptr<Isolator>> make_isolator(const Config& cfg, const Target& target,
                                                const std::string& unit_id) {
  switch (cfg.isolation) {
    case Isolation::none:
      return make_none_isolator(cfg, target, unit_id);
    case Isolation::user:
      return make_user_isolator(cfg, target, unit_id);
    case Isolation::container:
      return make_container_isolator(cfg, target, unit_id);
  }
  return fail("unknown isolation");
}

}  // namespace aw
