// The owner's check plugins asked about a patch awaywork's own output check accepted (issue 28,
// docs/plugins.md#check-check): inside a unit after its check (collect.cc), and again when the
// unit's artifact is applied later (`apply --from DIR`, artifact.cc), so that the apply job of the
// reusable workflow publishes nothing a house rule refuses. Each plugin may only add reasons
// (rule plugin.check, source "plugin"): none removes one or changes the patch; one that fails
// refuses (plugin/check.h). With plugins off, or a plugin the owner disabled, a note says so and
// the patch goes on without it: the owner's switch.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "check/verdict.h"
#include "config/config.h"
#include "record/record.h"

namespace aw {

// Nothing when v is not accepted or no check plugin is declared. Otherwise each enabled check
// plugin is called with the check's params (u.id, repo: the repository a request must name,
// base_ref, v.paths, patch, v.requests); any refusal is added to v (each redacted of secrets and
// of the plugins' own secrets), v.accepted turns false and its requests are dropped. Notes (off,
// disabled) go to u.notes.
void check_with_plugins(const Config& cfg, std::string_view repo, std::string_view base_ref,
                        const std::string& patch, UnitRecord& u,
                        const std::vector<std::string>& secrets, Verdict& v);

// How many of v's refusals a check plugin gave.
size_t plugin_refusals(const Verdict& v);

}  // namespace aw
