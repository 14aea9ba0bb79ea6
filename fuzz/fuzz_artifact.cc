// An artifact's JSON files (unit/artifact_parse.h) on arbitrary bytes, read as manifest.json,
// record.json and verdict.json: what `check --from` and `apply --from` read from another job.
// Nothing crashes or throws (an uncaught throw aborts: a finding), whatever the JSON; every
// error names its file and is valid UTF-8 (`--json` puts it in JSON); a record read back writes
// and reads again as the same record.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "record/record.h"
#include "unit/artifact_parse.h"

namespace {

template <class R>
void check_error(const R& r, std::string_view file) {
  if (r) return;
  const std::string& e = r.error().message;
  if (e.compare(0, file.size(), file) != 0) std::abort();
  (void)nlohmann::json(e).dump();  // throws (and so aborts) on bytes that are not UTF-8
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto manifest = aw::parse_manifest(text);
  auto record = aw::parse_artifact_record(text);
  auto verdict = aw::parse_artifact_verdict(text);
  check_error(manifest, "manifest.json");
  check_error(record, "record.json");
  check_error(verdict, "verdict.json");
  if (manifest && record) check_error(aw::manifest_agrees(*manifest, *record), "manifest.json");
  if (record) {
    nlohmann::json j = aw::to_json(*record);
    auto again = aw::unit_from_json(j, "record.json");
    if (!again || aw::to_json(*again) != j) std::abort();
  }
  return 0;
}
