// Walks tests/corpus: every hostile case must be refused with exactly the rules its .expect
// names; every benign case must be accepted; every text case sanitizes as written down. See
// tests/corpus/generate.py for how they are made.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "check/check.h"
#include "check/redact.h"
#include "check/sanitize.h"

namespace aw {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

struct Case {
  std::string kind, name;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.kind << "/" << c.name;
}

std::vector<Case> cases(const std::string& kind) {
  std::vector<Case> out;
  for (const auto& e : fs::directory_iterator(fs::path(AW_CORPUS_DIR) / kind)) {
    auto n = e.path().filename().string();
    if (n.size() > 6 && n.substr(n.size() - 6) == ".patch")
      out.push_back({kind, n.substr(0, n.size() - 6)});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

struct Loaded {
  Result<Bounds> bounds = Bounds{};
  std::string patch;
  std::optional<std::string> requests;
  RequestContext ctx;
};

Loaded load(const Case& c) {
  fs::path base = fs::path(AW_CORPUS_DIR) / c.kind / c.name;
  Loaded l;
  l.patch = slurp(base.string() + ".patch");
  if (fs::exists(base.string() + ".bounds.yml"))
    l.bounds = load_bounds(base.string() + ".bounds.yml");
  if (fs::exists(base.string() + ".requests.jsonl")) {
    auto r = read_requests_file(base.string() + ".requests.jsonl");
    EXPECT_TRUE(r) << r.error().message;
    if (r) l.requests = *r;
  }
  if (fs::exists(base.string() + ".secrets"))
    l.ctx.secrets = lines_of(slurp(base.string() + ".secrets"));
  l.ctx.repo = "owner/repo";
  l.ctx.base = "main";
  l.ctx.issue = 7;
  return l;
}

Verdict run(const Loaded& l) {
  std::optional<std::string_view> rv;
  if (l.requests) rv = *l.requests;
  return check_outputs(l.patch, rv, *l.bounds, l.ctx);
}

class CheckHostile : public testing::TestWithParam<Case> {};
class CheckBenign : public testing::TestWithParam<Case> {};

TEST_P(CheckHostile, RefusedWithExactlyTheExpectedRules) {
  const Case& c = GetParam();
  auto expect_lines = lines_of(slurp(fs::path(AW_CORPUS_DIR) / "hostile" / (c.name + ".expect")));
  std::set<std::string> expected(expect_lines.begin(), expect_lines.end());
  ASSERT_FALSE(expected.empty());
  Loaded l = load(c);
  if (expected == std::set<std::string>{"bounds.invalid"}) {
    EXPECT_FALSE(l.bounds) << "bounds should not load";
    return;
  }
  ASSERT_TRUE(l.bounds) << l.bounds.error().message;
  Verdict v = run(l);
  EXPECT_FALSE(v.accepted);
  EXPECT_TRUE(v.paths.empty()) << "a refused verdict lists no paths to apply";
  EXPECT_TRUE(v.requests.empty());
  std::set<std::string> got;
  for (const auto& r : v.refusals) {
    got.insert(r.rule);
    EXPECT_FALSE(r.detail.empty());
  }
  EXPECT_EQ(got, expected) << render_text(v);
  // A refusal never repeats the secret it found.
  for (const auto& s : l.ctx.secrets) EXPECT_EQ(render_text(v).find(s), std::string::npos);
  EXPECT_EQ(render_text(v).find("ghp_A1b2"), std::string::npos);
  EXPECT_NO_THROW(to_json(v).dump());
}

TEST_P(CheckBenign, Accepted) {
  Loaded l = load(GetParam());
  ASSERT_TRUE(l.bounds) << l.bounds.error().message;
  Verdict v = run(l);
  EXPECT_TRUE(v.accepted) << render_text(v);
  EXPECT_EQ(v.paths.size(), v.stats.files);
  if (l.requests) {
    EXPECT_FALSE(v.requests.empty());
  }
}

std::string name_of(const testing::TestParamInfo<Case>& i) {
  return i.param.name;
}

INSTANTIATE_TEST_SUITE_P(CheckCorpus, CheckHostile, testing::ValuesIn(cases("hostile")), name_of);
INSTANTIATE_TEST_SUITE_P(CheckCorpus, CheckBenign, testing::ValuesIn(cases("benign")), name_of);

// Text cases: what the sanitizer does to text before it reaches GitHub, checked on its own and
// through the request path (an add_comment body in the unit owner/repo).
std::vector<Case> text_cases(const std::string& kind) {
  std::vector<Case> out;
  for (const auto& e : fs::directory_iterator(fs::path(AW_CORPUS_DIR) / "text" / kind))
    if (e.path().extension() == ".md") out.push_back({kind, e.path().stem().string()});
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

std::string sanitized_as_comment(const std::string& text) {
  RequestContext ctx;
  ctx.repo = "owner/repo";
  Bounds b;
  b.max_requests["add_comment"] = 1;
  std::string line = nlohmann::json{{"type", "add_comment"}, {"body", text}}.dump() + "\n";
  Verdict v = check_outputs("", std::string_view(line), b, ctx);
  EXPECT_TRUE(v.accepted) << render_text(v);
  return v.requests.empty() ? "(refused)" : v.requests[0].body;
}

class CheckText : public testing::TestWithParam<Case> {};

TEST_P(CheckText, SanitizedAsExpectedOnceAndForAll) {
  const Case& c = GetParam();
  fs::path base = fs::path(AW_CORPUS_DIR) / "text" / c.kind / c.name;
  std::string in = slurp(base.string() + ".md");
  std::string want = c.kind == "benign" ? in : slurp(base.string() + ".out");
  SanitizeOptions o;
  o.repo = "owner/repo";
  std::string once = sanitize_text(in, o);
  EXPECT_EQ(once, want);
  EXPECT_EQ(sanitize_text(once, o), once) << "a second pass changes it";
  EXPECT_EQ(sanitized_as_comment(in), want);
  if (c.kind != "hostile") return;
  for (const auto& gone : lines_of(slurp(base.string() + ".gone")))
    EXPECT_EQ(once.find(gone), std::string::npos) << "survived: " << gone;
}

INSTANTIATE_TEST_SUITE_P(Benign, CheckText, testing::ValuesIn(text_cases("benign")), name_of);
INSTANTIATE_TEST_SUITE_P(Hostile, CheckText, testing::ValuesIn(text_cases("hostile")), name_of);

TEST(CheckCorpus, HasAtLeastSixtyHostileAndTwentyBenignCases) {
  EXPECT_GE(cases("hostile").size(), 60u);
  EXPECT_GE(cases("benign").size(), 20u);
  EXPECT_GE(text_cases("hostile").size(), 20u);
  EXPECT_GE(text_cases("benign").size(), 10u);
}

}  // namespace
}  // namespace aw
