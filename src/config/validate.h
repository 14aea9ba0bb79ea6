// Checks of single values of the config. Each error is "what is wrong; how to fix it" without the
// file position, which the caller prefixes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"

namespace aw {

// Agent and repository names: [A-Za-z0-9][A-Za-z0-9_.-]*, at most 64 characters. They name
// folders and appear in branch names, so nothing else.
Status check_entry_name(const std::string& name);

// Environment variable names: [A-Za-z_][A-Za-z0-9_]*.
Status check_env_name(const std::string& name);

// A name a profile hands to its phases (a var or a secret): a variable name that awaywork does not
// set itself (HOME, PATH, TMPDIR, AWAYWORK_*), which a profile must not override.
Status check_profile_name(const std::string& name);

// A profile var's value: refused when it looks like a secret (a token, a key), which belongs in
// the secret store, not in plaintext config. name is the var's name, for the fix.
Status check_var_value(const std::string& name, const std::string& value);

// An inference upstream's base URL: https://host[:port][/path], or http:// only to a loopback
// address (a local test server). No credentials, query or fragment.
Status check_inference_url(const std::string& url);
// The same rule for any API base URL (inference, forges); hint shows a right one.
Status check_api_url(const std::string& url, std::string_view hint);
// An https:// API base URL's host (lowercase, without its port) and path ("" or "/api/v3"), for
// the egress proxy's rule of the read-only forge; nullopt for another scheme or an IP literal
// (the unit's CA issues certificates for host names only).
std::optional<std::pair<std::string, std::string>> api_host_of(const std::string& api_url);

// An allowlist domain: a host name ("example.com") or "*." and a suffix of at least two labels
// ("*.pypi.org"). Returns it lowercased.
Result<std::string> check_domain(const std::string& domain);

// A remote to clone: scheme URL (https, http, ssh, git, file) or scp-like user@host:path. Refuses
// what git would read as an option or a remote helper (ext::) and credentials inside the URL.
Status check_url(const std::string& url);

// A branch name git would accept, and nothing that could read as an option.
Status check_branch(const std::string& branch);

// A container image reference: no blanks, no control characters, not an option.
Status check_image(const std::string& image);

// A Unix user name that can go into a sudoers line: [a-z_][a-z0-9_-]*, at most 32 characters.
Status check_user_name(const std::string& name);

}  // namespace aw
