// isolation container (isolator_container.cc): one fresh container per phase. With what only
// awaywork's own commands add (never a unit's phases): `awaywork probe` lends its static probe
// read-only; its tests weaken a container on purpose to show the probe sees the leak.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/isolator.h"

namespace aw {

struct ContainerExtras {
  // {host file, path inside}: mounted read-only into every phase container.
  std::vector<std::pair<std::string, std::string>> lend_readonly;
  // Test-only engine flags (ContainerPlan::weaken_for_test); never from configuration.
  std::vector<std::string> weaken_for_test;
};

Result<std::unique_ptr<Isolator>> make_container_isolator(const Config& cfg,
                                                          const IsolationSpec& target,
                                                          const std::string& unit_id);

Result<std::unique_ptr<Isolator>> make_container_isolator_with(const Config& cfg,
                                                               const IsolationSpec& target,
                                                               const std::string& unit_id,
                                                               ContainerExtras extras);

}  // namespace aw
