// The owner's bounds on a unit's outputs, per repository, with safe defaults. Loaded from YAML
// with the same strictness as the config: unknown keys refused with FILE:LINE:COL and a hint.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

// Agent instruction files, protected in a patch at any depth unless a repository unprotects them.
inline constexpr const char* kInstructionFiles[] = {"AGENTS.md", "CLAUDE.md", "GEMINI.md",
                                                    ".mcp.json"};

struct Bounds {
  uint64_t max_patch_bytes = 1u << 20;
  int max_patch_files = 100;
  // Per request type, the most that may be asked for. Types absent here may not be asked at all.
  std::map<std::string, int> max_requests = {
      {"create_pull_request", 1}, {"add_comment", 1}, {"add_labels", 3},
      {"create_issue", 0},        {"noop", 1},        {"missing_tool", 10},
      {"missing_data", 10}};
  std::vector<std::string> allowed_labels;   // add_labels/create_issue labels; empty = none
  std::vector<std::string> protected_globs;  // the owner's extra protected paths
  // Exact top-level dot-folder names (".github") or instruction file names (kInstructionFiles).
  std::vector<std::string> unprotect;
  std::vector<std::string> allow_encoded;  // globs whose files may carry encoded data
  bool allow_executables = false;
  bool allow_binary = false;
};

// `key_path` prefixes messages ("repos.web.bounds"); "" for a standalone bounds file.
Result<Bounds> bounds_from_yaml(const YAML::Node& node, const std::string& file,
                                const std::string& key_path);
Result<Bounds> parse_bounds(const std::string& text, const std::string& file);
Result<Bounds> load_bounds(const std::string& path);

}  // namespace aw
