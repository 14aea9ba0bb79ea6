// `awaywork host lock` (cmd_host.cc; the work is src/host/lock.h): registered by main.cc in one
// call, like `secret`.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

#include "cli/commands.h"

namespace aw {

// Adds `host lock [--runner USER] [--worker NAME] [--json]`. The command runs in CLI11's callback
// during parse; its exit code lands in *exit_code.
void add_host_commands(CLI::App& app, GlobalOptions& g, std::optional<int>* exit_code);

}  // namespace aw
