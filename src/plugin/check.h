// Check plugins (issue 28 item 1, docs/plugins.md#check-check): the owner's house rules for what
// may be published (licence headers, forbidden dependencies), asked after awaywork's own output
// check accepted a patch. A check plugin is given the patch and the checked requests as data and
// may only refuse: its answer never changes the patch, the requests or awaywork's verdict except
// to add reasons. It fails closed: a plugin that cannot be run, crashes, times out, is not
// approved as it is now, or answers anything but a well-formed verdict is a refusal naming the
// plugin and what went wrong, so a broken rule never lets a patch through unchecked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "plugin/call.h"

namespace aw {

// The method every check plugin is called with, once per unit.
inline constexpr std::string_view kCheckMethod = "check";
// More reasons than this from one plugin are cut (a hostile plugin could fill the record).
inline constexpr size_t kCheckMaxRefusals = 50;

// One reason a check plugin refused with; path and line are the plugin's (0 = none).
struct PluginRefusal {
  std::string plugin;
  std::string path;    // the patch path it names, made inert; "" for the whole patch
  int line = 0;        // 1-based in that file's new text, 0 = the whole file
  std::string reason;  // the plugin's words made inert, or what went wrong with the call
};

// The check plugins among the declared ones, by name.
std::vector<const PluginConfig*> check_plugins_of(const PluginsConfig& plugins);

// The call's params (docs/plugins/check.schema.json): the unit, the repository a request must
// name, the base, the patch's paths, the patch, and the checked requests (each an object).
nlohmann::json check_params(std::string_view unit, std::string_view repo, std::string_view base_ref,
                            const std::vector<std::string>& paths, std::string_view patch,
                            nlohmann::json requests);

// The refusals a check plugin's "result" says: none for {"accepted": true}. Anything else than
// {"accepted": true} or {"accepted": false, "refusals": [{"reason": "...", "path": "...",
// "line": N}, ...]} (at least one reason) is one refusal saying what was wrong with the answer.
std::vector<PluginRefusal> check_result_refusals(const nlohmann::json& result,
                                                 std::string_view plugin);

// Calls each plugin with `params` (the check's: see docs/plugins.md) and gathers their refusals;
// a call that failed is one refusal carrying the call's error. Empty: every plugin accepted.
std::vector<PluginRefusal> run_check_plugins(const std::vector<const PluginConfig*>& plugins,
                                             const PluginHost& host, const nlohmann::json& params);

}  // namespace aw
