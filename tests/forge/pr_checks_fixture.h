// Failing checks as forge/pr_checks.h reads them, and their names: the helpers of the required
// checks' tests (pr_required_test.cc for branch protection, pr_ruleset_test.cc for rulesets).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "forge/pr_checks.h"

namespace aw::test {

// A failed check: kind "check run" (from app_id) or "status" (app_id 0, as GitHub has none).
inline FailingCheck failing(std::string kind, std::string name, int64_t app_id = 0) {
  FailingCheck f;
  f.kind = std::move(kind);
  f.name = std::move(name);
  f.conclusion = "failure";
  f.app_id = app_id;
  return f;
}

// The checks' names, in their order: what only_required kept.
inline std::vector<std::string> names(const std::vector<FailingCheck>& v) {
  std::vector<std::string> out;
  for (const FailingCheck& f : v) out.push_back(f.name);
  return out;
}

}  // namespace aw::test
