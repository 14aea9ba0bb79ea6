// The sections of the config parser (config_parse.cc, parse_sandbox.cc, parse_entries.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/yaml_walk.h"

namespace aw {

struct ParseCtx {
  Issues& issues;
  std::string base_dir;  // relative paths resolve here: the config file's folder
  std::string home;      // what ~/ means
};

// A path value, expanded (~/, relative to base_dir) and absolute.
std::optional<std::string> get_path(const Value& v, const ParseCtx& ctx, std::string_view hint);
// A list of paths.
std::optional<std::vector<std::string>> get_paths(const Value& v, const ParseCtx& ctx,
                                                  std::string_view hint);

void parse_sandbox(const Value& v, const ParseCtx& ctx, SandboxConfig& out);
void parse_agents(const Value& v, const ParseCtx& ctx, std::map<std::string, AgentConfig>& out);
void parse_repos(const Value& v, const ParseCtx& ctx, std::map<std::string, RepoConfig>& out);

}  // namespace aw
