// A plugin's manifest (issue 28 item 2, docs/plugins.md#the-manifest): awaywork-plugin.json in the
// plugin's folder, the author's word for what the plugin is (name, version, kinds, entry, runtime)
// and what it asks for (permissions: net, read, write, secrets, env). The owner's config grants;
// the manifest bounds the grant: a plugin whose folder has a manifest runs only as one of its
// kinds, only its entry, and with no host, path, secret or variable its manifest does not ask for,
// so an owner's slip (a host added to the wrong plugin) is refused rather than handed over. The
// manifest is a file of the folder, so approval covers it like the code.
//
// The file is hostile data until checked: size-capped, parsed without exceptions, every key
// checked, unknown keys refused. Each error names the file, the key and the fix:
//
//   /opt/lic/awaywork-plugin.json: "runtime": 'python' is not a runtime; fix: write "runtime":
//   "exec" or "node"
//
// docs/plugins/manifest.schema.json describes the same file as JSON Schema.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"

namespace aw {

inline constexpr const char* kManifestName = "awaywork-plugin.json";

struct PluginManifest {
  std::string file;     // where it was read from
  std::string name;     // [A-Za-z0-9][A-Za-z0-9_.-]*
  std::string version;  // MAJOR.MINOR.PATCH, optionally -PRERELEASE
  std::vector<PluginKind> kinds;
  std::string entry;    // a path under the folder, no "..": the program the config must run
  std::string runtime;  // "exec", or "node": the entry run by node (plugin/node_runtime.h)
  // What it asks for; the config may grant these or fewer. write: folders it writes besides its
  // data folder (plugin/write_paths.h checks them where they are used).
  std::vector<std::string> net, read, write, secrets, env;
  // "limits": what one call needs (time, memory, processes); unset = the config's alone. The
  // config's value caps each: the plugin runs with the lower of the two (bounded_limits).
  std::optional<int64_t> timeout_ms;
  std::optional<uint64_t> memory_bytes;
  std::optional<int> processes;
};

// Reads and checks FOLDER/awaywork-plugin.json. home expands a leading "~/" in read: paths.
Result<PluginManifest> load_manifest(const std::string& folder, const std::string& home);

// The manifest of the declared plugin's folder (the folder of its program, command[0]); nullopt
// when the folder has none or the program is in the system's trees (a bare /usr/bin tool).
Result<std::optional<PluginManifest>> manifest_of(const PluginConfig& p, const std::string& home);

// The config's grant against the manifest: its kind among the manifest's kinds, its program the
// manifest's entry, each of net/read/secrets/env asked for. An Error names the plugin, the config
// key, the manifest and the fix.
Status check_grant(const PluginConfig& p, const PluginManifest& m);

// The plugin's limits as a call applies them: each the lower of the config's and the manifest's.
// Clamped, never refused: a lower limit takes nothing from the owner (the plugin may only fail
// sooner), so the owner's config caps the author's ask as it caps every other permission, and a
// manifest asking for more than the config gives runs with the config's (raise timeout:, memory:
// or processes: under plugins.NAME to give it more). A config above the manifest is lowered to the
// manifest's: the author said the plugin needs no more.
PluginConfig bounded_limits(const PluginConfig& p, const PluginManifest& m);

// manifest_of then check_grant: what approval and each call require (no manifest: nothing to
// check).
Status check_manifest(const PluginConfig& p, const std::string& home);

}  // namespace aw
