// Paths as the config writes them: `~/` is config syntax for $HOME (no shell is involved), a
// relative path is relative to the config file's folder, and what is stored is absolute.
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

// $HOME, or the passwd entry's home when HOME is unset; "" when neither is known.
std::string home_dir();

// $XDG_STATE_HOME/awaywork (only if absolute, per the XDG spec) or ~/.local/state/awaywork.
std::string default_state_dir();

struct Config;
// Where the state lives: cfg.state_dir or the XDG default.
std::string state_dir_of(const Config& cfg);

// $XDG_CONFIG_HOME/awaywork (only if absolute) or ~/.config/awaywork.
std::string default_config_dir();

// raw -> an absolute, lexically normal path. base_dir is absolute. Refuses empty paths, `~user`,
// `~/` without a known home, and control characters.
Result<std::string> expand_path(const std::string& raw, const std::string& base_dir,
                                const std::string& home);

}  // namespace aw
