// Bounds loading: defaults, every key, and errors that say where and what.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <string>

#include "check/bounds.h"

namespace aw {
namespace {

TEST(CheckBounds, DefaultsAreTheIssuesDefaults) {
  Bounds b;
  EXPECT_EQ(b.max_patch_bytes, 1u << 20);
  EXPECT_EQ(b.max_patch_files, 100);
  EXPECT_EQ(b.max_requests.at("create_pull_request"), 1);
  EXPECT_EQ(b.max_requests.at("add_comment"), 1);
  EXPECT_EQ(b.max_requests.at("add_labels"), 3);
  EXPECT_EQ(b.max_requests.at("create_issue"), 0);
  EXPECT_FALSE(b.allow_executables);
  EXPECT_FALSE(b.allow_binary);
  auto empty = parse_bounds("", "b.yml");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->max_patch_files, 100);
}

TEST(CheckBounds, ReadsEveryKey) {
  auto b = parse_bounds(
      "max_patch_bytes: 512K\n"
      "max_patch_files: 7\n"
      "requests:\n"
      "  create_issue: 2\n"
      "  add_labels: {max: 1, allowed: [bug, docs]}\n"
      "protected: ['infra/**']\n"
      "unprotect: [.github, .devcontainer]\n"
      "allow_executables: true\n"
      "allow_binary: true\n"
      "allow_encoded: [fixtures/**, '*.pem']\n",
      "b.yml");
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->max_patch_bytes, 512u << 10);
  EXPECT_EQ(b->max_patch_files, 7);
  EXPECT_EQ(b->max_requests.at("create_issue"), 2);
  EXPECT_EQ(b->max_requests.at("add_labels"), 1);
  EXPECT_EQ(b->allowed_labels, (std::vector<std::string>{"bug", "docs"}));
  EXPECT_EQ(b->protected_globs, std::vector<std::string>{"infra/**"});
  EXPECT_EQ(b->unprotect, (std::vector<std::string>{".github", ".devcontainer"}));
  EXPECT_TRUE(b->allow_executables);
  EXPECT_TRUE(b->allow_binary);
  EXPECT_EQ(b->allow_encoded, (std::vector<std::string>{"fixtures/**", "*.pem"}));
}

TEST(CheckBounds, UnknownKeyNamesFileLineColumnAndSuggests) {
  auto b = parse_bounds("max_patch_files: 3\nmax_pach_bytes: 10\n", "repo.yml");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "repo.yml:2:1: unknown key `max_pach_bytes` (did you mean `max_patch_bytes`?)");
}

TEST(CheckBounds, NestedErrorsCarryTheKeyPath) {
  YAML::Node n = YAML::Load("requests:\n  add_comment: many\n");
  auto b = bounds_from_yaml(n, "config.yml", "repos.web.bounds");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "config.yml:2:16: repos.web.bounds.requests.add_comment: expected a whole number");
}

TEST(CheckBounds, WrongTypesAreRefused) {
  EXPECT_FALSE(parse_bounds("allow_binary: yes\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("max_patch_files: -1\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("protected: infra\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("requests: {merge: 1}\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("max_patch_bytes: 99999999999999999999\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("[1, 2]\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("a: [\n", "b.yml"));
}

TEST(CheckBounds, UnprotectTakesOnlyTopLevelDotFolderNames) {
  EXPECT_FALSE(parse_bounds("unprotect: [.github/workflows]\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("unprotect: [github]\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("unprotect: [.git]\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("unprotect: [.gitmodules]\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("unprotect: ['..']\n", "b.yml"));
  EXPECT_TRUE(parse_bounds("unprotect: [.github]\n", "b.yml"));
  EXPECT_TRUE(parse_bounds("unprotect: [AGENTS.md, CLAUDE.md, GEMINI.md, .mcp.json]\n", "b.yml"));
  EXPECT_FALSE(parse_bounds("unprotect: [README.md]\n", "b.yml"));
}

TEST(CheckBounds, MissingFileIsAnError) {
  EXPECT_FALSE(load_bounds("/nonexistent/bounds.yml"));
}

// The first ```yaml block after the line holding `marker` in a file of the source tree, dedented
// (the manual's examples sit in a list item).
std::string yaml_example(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(AW_SOURCE_DIR) + "/" + file);
  std::string line, out;
  bool found = false, inside = false;
  size_t indent = 0;
  while (std::getline(in, line)) {
    if (!found) {
      found = line.find(marker) != std::string::npos;
    } else if (!inside) {
      size_t at = line.find("```yaml");
      if (at != std::string::npos) inside = true, indent = at;
    } else if (line.find("```") != std::string::npos) {
      return out;
    } else {
      out += (line.size() > indent ? line.substr(indent) : "") + "\n";
    }
  }
  return "";
}

// Issue 31, item 17: the README's example put add_labels beside requests, where the parser
// refuses it; what the manual shows must load, and mean what it says. The example moved with the
// output check's overview from the README to docs/check.md (issue 40, item 3).
TEST(CheckBounds, ManualExampleLoads) {
  std::string text = yaml_example("docs/check.md", "- **Bounds**, per repository");
  ASSERT_FALSE(text.empty()) << "no ```yaml block after docs/check.md's Bounds item";
  YAML::Node doc = YAML::Load(text);
  ASSERT_TRUE(doc["bounds"]) << text;
  auto b = bounds_from_yaml(doc["bounds"], "docs/check.md", "bounds");
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->max_requests.at("add_labels"), 3);
  EXPECT_EQ(b->allowed_labels, (std::vector<std::string>{"bug", "docs"}));
  EXPECT_EQ(b->max_requests.at("create_issue"), 0);
  EXPECT_EQ(b->unprotect, std::vector<std::string>{".github"});
}

}  // namespace
}  // namespace aw
