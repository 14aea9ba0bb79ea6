// The patch grammar against real git output, and the path rules one by one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "check/check.h"
#include "check/patch_parse.h"
#include "check/patch_rules.h"

namespace aw {
namespace {

namespace fs = std::filesystem;

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

class CheckRealGit : public testing::Test {
 protected:
  std::string dir = fs::temp_directory_path() / ("aw-patch-" + std::to_string(getpid()));
  std::string git =
      "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -c user.name=t "
      "-c user.email=t@t -c core.hooksPath=/dev/null -C ";
  void SetUp() override {
    fs::create_directories(dir);
    git += dir + " ";
    write("keep.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n");
    write("gone.txt", "bye\n");
    write("space name.txt", "a\n");
    write("café.txt", "b\n");
    ASSERT_EQ(
        system((git + "init -q . && " + git + "add -A && " + git + "commit -qm base").c_str()), 0);
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& p, const std::string& s) {
    fs::create_directories(fs::path(dir + "/" + p).parent_path());
    std::ofstream(dir + "/" + p, std::ios::binary) << s;
  }
  std::string diff(bool binary = false) {
    sh(git + "add -A");
    return sh(git + "diff --cached --no-renames --no-ext-diff --no-textconv --full-index " +
              (binary ? "--binary " : "") + "HEAD");
  }
};

TEST_F(CheckRealGit, ParsesEveryKindOfChange) {
  write("keep.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\nFOURTEEN\n15\n");
  fs::remove(dir + "/gone.txt");
  write("space name.txt", "a\nb\n");
  write("café.txt", "b\nc\n");
  write("new/empty", "");
  write("new/bin", std::string("\0\1\2\3", 4));
  std::string patch = diff(true);
  ParsedPatch p = parse_patch(patch);
  ASSERT_TRUE(p.refusals.empty()) << p.refusals[0].rule << " line " << p.refusals[0].line;
  ASSERT_EQ(p.files.size(), 6u);
  std::map<std::string, FileRecord> by;
  for (auto& f : p.files) by[f.path] = f;
  EXPECT_EQ(by["keep.txt"].change, FileChange::modified);
  EXPECT_EQ(by["keep.txt"].old_mode, 0100644u);
  EXPECT_EQ(by["keep.txt"].added, 2u);
  EXPECT_EQ(by["gone.txt"].change, FileChange::deleted);
  EXPECT_EQ(by["new/empty"].change, FileChange::added);
  EXPECT_TRUE(by["new/bin"].binary_data);
  EXPECT_TRUE(by.count("space name.txt"));
  EXPECT_TRUE(by.count("café.txt")) << "quoted names are unquoted";
  Bounds b;
  b.allow_binary = true;
  Verdict v = check_outputs(patch, std::nullopt, b, {});
  EXPECT_TRUE(v.accepted) << render_text(v);
  EXPECT_EQ(v.paths.size(), 6u);
  EXPECT_EQ(to_json(v)["paths"].size(), 6u);
}

TEST_F(CheckRealGit, RemovingAnyOneLineIsRefused) {
  write("keep.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\nFOURTEEN\n15\n");
  write("space name.txt", "a\nb\n");
  fs::remove(dir + "/gone.txt");
  std::string patch = diff();
  std::vector<std::string> lines;
  for (size_t s = 0, e; s < patch.size(); s = e + 1) {
    e = patch.find('\n', s);
    lines.push_back(patch.substr(s, e - s + 1));
  }
  ASSERT_GT(lines.size(), 20u);
  for (size_t skip = 0; skip < lines.size(); ++skip) {
    std::string cut;
    for (size_t i = 0; i < lines.size(); ++i)
      if (i != skip) cut += lines[i];
    EXPECT_FALSE(check_outputs(cut, std::nullopt, Bounds{}, {}).accepted)
        << "line " << skip + 1 << ": " << lines[skip];
  }
}

TEST_F(CheckRealGit, CheckFilesReadsTheThreeFiles) {
  write("keep.txt", "changed\n");
  std::string patch = diff();
  dir += "-files";  // outside the repository
  fs::create_directories(dir);
  std::ofstream(dir + "/p.patch") << patch;
  std::ofstream(dir + "/b.yml") << "max_patch_files: 5\n";
  std::ofstream(dir + "/r.jsonl") << "{\"type\":\"noop\",\"message\":\"x\"}\n";
  auto v = check_files(dir + "/b.yml", dir + "/p.patch", dir + "/r.jsonl");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v->accepted) << render_text(*v);
  EXPECT_EQ(v->paths, std::vector<std::string>{"keep.txt"});
  EXPECT_FALSE(check_files(dir + "/missing.yml", dir + "/p.patch", std::nullopt));
  EXPECT_FALSE(check_files(dir + "/b.yml", dir + "/missing.patch", std::nullopt));
  std::ofstream(dir + "/bad.yml") << "max_patch_filez: 5\n";
  EXPECT_FALSE(check_files(dir + "/bad.yml", dir + "/p.patch", std::nullopt));
  fs::remove_all(dir);
  dir.resize(dir.size() - 6);
}

TEST(CheckPathShape, PlainNamesPass) {
  for (const char* p :
       {"a", "src/main.c", "docs/café.md", "a b/c d", "日本語/ファイル.txt", "x.y-z_1"})
    EXPECT_FALSE(check_path_shape(p)) << p;
}

TEST(CheckPathShape, EachBadShapeHasItsRule) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"../x", "path.traversal"},
      {"a/../../x", "path.traversal"},
      {"/etc/x", "path.absolute"},
      {"a\\b", "path.backslash"},
      {"a//b", "path.malformed"},
      {"a/./b", "path.malformed"},
      {"a/", "path.malformed"},
      {std::string("a\0b", 3), "path.nul"},
      {"a\tb", "path.control"},
      {"a\xC2\x85"
       "b",
       "path.control"},
      {"a\xE2\x80\xAE"
       "b",
       "path.bidi"},
      {"a\xE2\x80\x8B"
       "b",
       "path.invisible"},
      {"\xFF", "path.utf8"},
      {"e\xCC\x81", "path.not_nfc"},
      {"p\xD0\xB0ypal", "path.homoglyph"},  // Cyrillic a among Latin letters
      {std::string(256, 'a'), "path.too_long"}};
  for (const auto& [p, rule] : cases) {
    auto r = check_path_shape(p);
    ASSERT_TRUE(r) << p;
    EXPECT_EQ(r->rule, rule) << p;
  }
}

TEST(CheckProtected, BuiltInListAndBounds) {
  Bounds b;
  for (const char* p : {".git/config", "x/.git/HEAD", ".gitmodules", "a/.gitattributes", ".GIT/x",
                        ".github/workflows/ci.yml", ".husky/pre-commit", ".pre-commit-config.yaml",
                        "lefthook.yml", ".gitlab-ci.yml", ".circleci/config.yml", ".travis.yml",
                        "Jenkinsfile", "x/.envrc", "CODEOWNERS", ".vscode/settings.json"})
    EXPECT_NE(protected_reason(p, b), "") << p;
  for (const char* p : {"src/a.c", ".eslintrc", "docs/github.md", "sub/.github/x", "README.md"})
    EXPECT_EQ(protected_reason(p, b), "") << p;
  b.unprotect = {".github"};
  EXPECT_EQ(protected_reason(".github/workflows/ci.yml", b), "");
  EXPECT_NE(protected_reason(".github/CODEOWNERS", b), "");
  EXPECT_NE(protected_reason(".GitHub/workflows/ci.yml", b), "");
  b.protected_globs = {"infra/", "*.key"};
  EXPECT_NE(protected_reason("infra/prod/main.tf", b), "");
  EXPECT_NE(protected_reason("a/b/server.key", b), "");
  EXPECT_EQ(protected_reason("src/infra.c", b), "");
}

TEST(CheckProtected, InstructionFilesAtAnyDepthUnlessTheRepositoryUnprotectsThem) {
  Bounds b;
  for (const char* p :
       {"AGENTS.md", "CLAUDE.md", "GEMINI.md", ".mcp.json", "sub/dir/AGENTS.md", "pkg/CLAUDE.md"})
    EXPECT_NE(protected_reason(p, b).find("instruction file"), std::string::npos) << p;
  for (const char* p : {"AGENTS.md.txt", "docs/agents.md", "README.md"})
    EXPECT_EQ(protected_reason(p, b), "") << p;
  b.unprotect = {"AGENTS.md", ".mcp.json"};
  EXPECT_EQ(protected_reason("AGENTS.md", b), "");
  EXPECT_EQ(protected_reason("sub/AGENTS.md", b), "");
  EXPECT_EQ(protected_reason(".mcp.json", b), "");
  EXPECT_NE(protected_reason("CLAUDE.md", b), "");
}

TEST(CheckGlob, Semantics) {
  EXPECT_TRUE(glob_match("*.pem", "a/b/c.pem"));
  EXPECT_TRUE(glob_match("deploy/**", "deploy/x/y"));
  EXPECT_TRUE(glob_match("deploy/**", "deploy"));
  EXPECT_TRUE(glob_match("src/*.c", "src/a.c"));
  EXPECT_FALSE(glob_match("src/*.c", "src/x/a.c"));
  EXPECT_TRUE(glob_match("src/**/a.c", "src/a.c"));
  EXPECT_TRUE(glob_match("src/**/a.c", "src/x/y/a.c"));
  EXPECT_TRUE(glob_match("/top.txt", "top.txt"));
  EXPECT_FALSE(glob_match("/top.txt", "x/top.txt"));
  EXPECT_TRUE(glob_match("secret?", "a/secret1"));
}

TEST(CheckUnquote, GitCStyle) {
  std::string out;
  ASSERT_TRUE(unquote_c("\"a/caf\\303\\251\\t\\\"x\\\\\"", out));
  EXPECT_EQ(out, "a/caf\xC3\xA9\t\"x\\");
  EXPECT_FALSE(unquote_c("\"a\\9\"", out));
  EXPECT_FALSE(unquote_c("\"a", out));
  EXPECT_FALSE(unquote_c("\"a\\\"", out));
}

// A new file's patch with these added lines (hunk counts exact).
std::string new_file_patch(const std::string& path, const std::vector<std::string>& lines) {
  std::string p = "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex " +
                  std::string(40, '0') + ".." + std::string(40, '1') + "\n--- /dev/null\n+++ b/" +
                  path + "\n@@ -0,0 +1," + std::to_string(lines.size()) + " @@\n";
  for (const auto& l : lines) p += "+" + l + "\n";
  return p;
}

std::string base64ish(size_t n) {
  const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += a[(i * 2654435761u >> 7) % 64];
  return s;
}

std::vector<std::string> rules_of(const std::string& patch, const Bounds& b = {}) {
  std::vector<std::string> out;
  for (const auto& r : check_outputs(patch, std::nullopt, b, {}).refusals) out.push_back(r.rule);
  return out;
}

TEST(CheckEncoded, A4KiBBase64BlobIsRefusedByItsOwnRuleAndAcceptedUnderAllowEncoded) {
  std::string patch = new_file_patch("fixtures/cookies.b64", {base64ish(4096)});
  EXPECT_EQ(rules_of(patch), std::vector<std::string>{"patch.encoded"});
  Bounds b;
  b.allow_encoded = {"fixtures/**"};
  EXPECT_EQ(rules_of(patch, b), std::vector<std::string>{});
  b.allow_encoded = {"other/**"};  // a glob naming another folder lifts nothing
  EXPECT_EQ(rules_of(patch, b), std::vector<std::string>{"patch.encoded"});
  auto v = check_outputs(patch, std::nullopt, Bounds{}, {});
  ASSERT_EQ(v.refusals.size(), 1u);
  EXPECT_EQ(v.refusals[0].path, "fixtures/cookies.b64");
  EXPECT_NE(v.refusals[0].detail.find("allow_encoded"), std::string::npos);
}

TEST(CheckEncoded, TheBoundIsOneKiBForARunAndForAWrappedBlock) {
  EXPECT_EQ(rules_of(new_file_patch("a.txt", {base64ish(1023)})), std::vector<std::string>{});
  EXPECT_EQ(rules_of(new_file_patch("a.txt", {base64ish(1024)})),
            std::vector<std::string>{"patch.encoded"});
  std::vector<std::string> wrapped, short_block;
  std::string b64 = base64ish(1100);
  for (size_t i = 0; i < b64.size(); i += 64) wrapped.push_back(b64.substr(i, 64));
  EXPECT_EQ(rules_of(new_file_patch("a.pem", wrapped)), std::vector<std::string>{"patch.encoded"});
  for (size_t i = 0; i < 900; i += 64) short_block.push_back(b64.substr(i, 64));
  EXPECT_EQ(rules_of(new_file_patch("a.pem", short_block)), std::vector<std::string>{});
  // A blank line between chunks ends a block: each half stays under the bound.
  std::vector<std::string> split = short_block;
  split.push_back("");
  split.insert(split.end(), short_block.begin(), short_block.end());
  EXPECT_EQ(rules_of(new_file_patch("a.pem", split)), std::vector<std::string>{});
  // Text is not data: a long line of words, a long run of letters without a digit.
  std::string words;
  while (words.size() < 4000) words += "lorem ipsum dolor sit amet ";
  EXPECT_EQ(rules_of(new_file_patch("a.txt", {words, std::string(2000, 'a')})),
            std::vector<std::string>{});
}

TEST(CheckVerdict, JsonIsValidEvenForUnprintablePaths) {
  std::string patch =
      "diff --git \"a/\\377\" \"b/\\377\"\nnew file mode 100644\nindex "
      "0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n"
      "--- /dev/null\n+++ \"b/\\377\"\n@@ -0,0 +1 @@\n+x\n";
  Verdict v = check_outputs(patch, std::nullopt, Bounds{}, {});
  ASSERT_FALSE(v.accepted);
  EXPECT_EQ(v.refusals[0].rule, "path.utf8");
  EXPECT_NO_THROW(to_json(v).dump());
  EXPECT_NE(render_text(v).find("path.utf8 [patch] line 1"), std::string::npos);
}

// A refused patch's path and detail are the agent's text, printed on the owner's terminal: a C1
// CSI (U+009B, UTF-8 C2 9B), an ESC, a bidi override or a newline in them is shown, not obeyed.
TEST(CheckVerdict, RenderTextShowsHostileControlsInert) {
  Verdict v;
  v.refusals.push_back({"path.control",
                        "a\xc2\x9b"
                        "2Jb\x1b[31mc\n  forged line",
                        1,
                        "holds \xe2\x80\xae"
                        "txt.exe\xc2\x85",
                        "patch"});
  v.omitted.push_back(
      "bin\xc2\x9b"
      "0m");
  std::string out = render_text(v);
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xc2\x85"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_NE(out.find(" a\\u009b2Jb\\x1b[31mc\\x0a  forged line: holds \\u202etxt.exe\\u0085\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("omitted (untracked binary) bin\\u009b0m\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace aw
