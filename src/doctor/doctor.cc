#include "doctor/doctor.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "base/json_write.h"

namespace aw {

void Registry::add(const std::string& isolation, Provider p) {
  providers_[isolation].push_back(std::move(p));
}

std::vector<Check> Registry::run(const std::string& isolation) const {
  std::vector<Check> out;
  auto it = providers_.find(isolation);
  if (it == providers_.end()) return out;
  for (const auto& p : it->second) {
    auto checks = p();
    out.insert(out.end(), checks.begin(), checks.end());
  }
  return out;
}

bool all_ok(const std::vector<Check>& checks) {
  for (const auto& c : checks)
    if (!c.ok) return false;
  return true;
}

std::string render(const std::vector<Check>& checks) {
  std::string out;
  int bad = 0;
  for (const auto& c : checks) {
    if (c.ok) {
      out += fmt::format("✔ {}{}\n", c.name, c.detail.empty() ? "" : " (" + c.detail + ")");
      continue;
    }
    ++bad;
    out += fmt::format("✖ {}{}\n", c.name, c.detail.empty() ? "" : ": " + c.detail);
    std::istringstream fix(c.fix);
    for (std::string line; std::getline(fix, line);) out += "    fix: " + line + "\n";
  }
  out += bad == 0 ? fmt::format("all {} checks pass\n", checks.size())
                  : fmt::format("{} of {} checks fail\n", bad, checks.size());
  return out;
}

std::string render_json(const std::vector<Check>& checks) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& c : checks)
    arr.push_back({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}, {"fix", c.fix}});
  nlohmann::json j = {{"ok", all_ok(checks)}, {"checks", arr}};
  // A detail names what a check found (a path, a user, a group), which may be any bytes.
  return json_text(j, 2);
}

}  // namespace aw
