#include "watch/source_defer.h"

namespace aw {

nlohmann::json with_pending_report(nlohmann::json row, const nlohmann::json& params) {
  row[kPendingReport] = params;
  return row;
}

std::optional<nlohmann::json> pending_report(const nlohmann::json& row) {
  if (!row.is_object()) return std::nullopt;
  auto phase = row.find("phase");
  if (phase == row.end() || !phase->is_string() || *phase != "done") return std::nullopt;
  auto it = row.find(kPendingReport);
  if (it == row.end() || !it->is_object()) return std::nullopt;
  return *it;
}

nlohmann::json without_pending_report(nlohmann::json row) {
  if (row.is_object()) row.erase(kPendingReport);
  return row;
}

}  // namespace aw
