// The agent CLIs' own folders and git's own files in the unit's HOME, put back between rounds
// (docs/rounds.md): what one round writes there (a ~/.claude/CLAUDE.md, an MCP server in
// $CODEX_HOME/config.toml, an opencode plugin in ~/.config/opencode, a filter in ~/.gitconfig)
// must not become the next round's instructions or code.
//
//   AW_TRY(HomeSnapshot s, snapshot_home(paths.home));   // before agent round 1
//   AW_CHECK(restore_home(s, notes));                    // before each later round
//
// Both run on awaywork's side with nothing of the unit running. The HOME folder must still be the
// one snapshotted (same inode); inside it nothing is followed: a link is a link, a replaced
// folder is removed. The lent Codex login ($CODEX_HOME/auth.json) is the lease's and stays.
#pragma once

#include <sys/types.h>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

// The HOME paths a CLI loads instructions, settings, hooks, plugins or MCP servers from, and
// git's global config and attributes.
extern const std::vector<std::string> kAgentHomePaths;

struct HomeSnapshot {
  struct Entry {
    std::string path;  // relative to HOME, parents before children
    mode_t type = 0;   // S_IFDIR, S_IFREG or S_IFLNK
    mode_t mode = 0;   // permission bits
    std::string data;  // a file's content or a link's target
  };
  std::string home;
  dev_t dev = 0;
  ino_t ino = 0;
  std::vector<Entry> entries;
};

// Reads kAgentHomePaths under home (missing ones are recorded as absent). Capped: more than 64 MiB
// or 20000 entries is an Error naming the path.
Result<HomeSnapshot> snapshot_home(const std::string& home);

// Each of kAgentHomePaths made exactly what the snapshot holds; notes say which changed.
Status restore_home(const HomeSnapshot& s, std::vector<std::string>& notes);

}  // namespace aw
