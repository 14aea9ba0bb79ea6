// `awaywork plugin approve|list|disable|enable` (cmd_plugin.cc; the work is src/plugin/approval.h
// and disable.h): registered by main.cc in one call, like `secret`.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

#include "cli/commands.h"

namespace aw {

// Adds `plugin approve NAME`, `plugin list [--json]`, `plugin disable NAME` and
// `plugin enable NAME`. The command runs in CLI11's callback
// during parse; its exit code lands in *exit_code.
void add_plugin_commands(CLI::App& app, GlobalOptions& g, std::optional<int>* exit_code);

}  // namespace aw
