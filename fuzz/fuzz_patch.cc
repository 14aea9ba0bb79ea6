// The patch grammar on arbitrary bytes: never crashes, and whatever it accepts obeys the rules.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "check/check.h"
#include "check/patch_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view patch(reinterpret_cast<const char*>(data), size);
  aw::Bounds b;
  b.allow_binary = size % 2;  // both grammars
  aw::Verdict v = aw::check_outputs(patch, std::nullopt, b, {});
  if (v.accepted) {
    if (v.paths.size() != v.stats.files) std::abort();
    for (const auto& p : v.paths)
      if (aw::check_path_shape(p) || !aw::protected_reason(p, b).empty()) std::abort();
  } else if (!v.paths.empty()) {
    std::abort();
  }
  (void)aw::to_json(v).dump();
  (void)aw::render_text(v);
  return 0;
}
