// requests.jsonl on arbitrary bytes: never crashes; kept text is clean and stable.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "check/bounds.h"
#include "check/requests.h"
#include "check/sanitize.h"
#include "check/verdict.h"

namespace {

bool has_forbidden(const std::string& s) {
  // Bidi controls, zero-width characters and ESC must never survive sanitizing.
  for (std::string_view bad :
       {"\xE2\x80\xAE", "\xE2\x80\x8B", "\xE2\x81\xA6", "\x1b", "\xEF\xBB\xBF"})
    if (s.find(bad) != std::string::npos) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  aw::Bounds b;
  b.allowed_labels = {"bug", "docs"};
  b.max_requests["create_issue"] = 2;
  aw::RequestContext ctx;
  ctx.repo = "o/r";
  ctx.secrets = {"fuzz-secret-literal"};
  std::vector<aw::Refusal> refusals;
  auto reqs = aw::parse_requests(text, b, ctx, refusals);
  for (const auto& r : reqs) {
    for (const std::string* f : {&r.title, &r.body, &r.message, &r.tool, &r.reason, &r.what}) {
      if (has_forbidden(*f) || f->find("fuzz-secret-literal") != std::string::npos) std::abort();
    }
    (void)aw::to_json(r).dump();
  }
  // Sanitizing is idempotent on any input.
  std::string once = aw::sanitize_text(text, ctx.allowed_domains, 4096);
  if (aw::sanitize_text(once, ctx.allowed_domains, 4096) != once) std::abort();
  if (has_forbidden(once)) std::abort();
  return 0;
}
