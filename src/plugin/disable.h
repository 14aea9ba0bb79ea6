// One plugin switched off by the owner (issue 28 item 3, docs/plugins.md#disabling-one-plugin):
// `awaywork plugin disable NAME` leaves STATE/plugins/NAME/disabled (0600 in the owner's 0700
// folder, never in any plugin's sandbox, so no plugin can turn itself back on); `enable` removes
// it. A disabled plugin never runs: call_plugin refuses it, and the unit's callers leave it out
// with a note. plugins: {run: false} stays the switch for all of them at once.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"

namespace aw {

// Whether the owner disabled plugin `name`. An Error when that cannot be told (the state folder
// unreadable): the caller then runs nothing of it.
Result<bool> plugin_disabled(const std::string& plugins_dir, const std::string& name);

// Records (disabled = true) or removes the owner's switch for plugin `name`.
Status set_plugin_disabled(const std::string& plugins_dir, const std::string& name, bool disabled);

// `awaywork plugin disable|enable NAME`: NAME must be declared (the Error names those that are).
Status set_declared_disabled(const PluginsConfig& plugins, const std::string& plugins_dir,
                             const std::string& name, bool disabled);

// The plugins of `list` not disabled; the names of the disabled ones go to *disabled. A plugin
// whose switch cannot be read stays in (call_plugin then refuses it with the reason, which a
// check plugin turns into a refusal: never an unchecked patch).
std::vector<const PluginConfig*> enabled_plugins(const std::vector<const PluginConfig*>& list,
                                                 const std::string& plugins_dir,
                                                 std::vector<std::string>* disabled);

}  // namespace aw
