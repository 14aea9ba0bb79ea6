// `awaywork secret set|list|rm` (cmd_secret.cc): registered by main.cc in one call.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

#include "cli/commands.h"

namespace aw {

// Adds `secret set NAME`, `secret list [--json]` and `secret rm NAME` to app. The command runs in
// CLI11's callback during parse; its exit code lands in *exit_code.
void add_secret_commands(CLI::App& app, GlobalOptions& g, std::optional<int>* exit_code);

}  // namespace aw
