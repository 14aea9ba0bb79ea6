// isolation container: not wired into units yet; refuses with a message instead of running unisolated.
#include "unit/isolator.h"

namespace aw {

Result<std::unique_ptr<Isolator>> make_container_isolator(const Config&, const Target&, const std::string&) {
  return fail("isolation `container` is not wired into units yet; set `isolation: none`");
}

}  // namespace aw
