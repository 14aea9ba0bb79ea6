// Bounds from YAML, strictly: every key known, every value of its type, errors with
// FILE:LINE:COL, the key path and, for a misspelt key, the nearest known one.
#include "check/bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "base/fs.h"

namespace aw {
namespace {

struct Ctx {
  const std::string& file;
  std::string path;  // dotted key path of the node being read
};

std::string where(const Ctx& c, const YAML::Node& n) {
  auto m = n.Mark();
  std::string k = c.path.empty() ? "" : c.path + ": ";
  if (m.line < 0) return fmt::format("{}: {}", c.file, k);
  return fmt::format("{}:{}:{}: {}", c.file, m.line + 1, m.column + 1, k);
}

size_t distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string hint(const std::string& key, const std::vector<std::string>& known) {
  std::string best;
  size_t bd = 3;
  for (const auto& k : known) {
    size_t d = distance(key, k);
    if (d < bd) bd = d, best = k;
  }
  if (!best.empty()) return fmt::format(" (did you mean `{}`?)", best);
  std::string all;
  for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
  return fmt::format(" (known keys: {})", all);
}

Status known_keys(const YAML::Node& n, const Ctx& c, const std::vector<std::string>& known) {
  if (!n.IsMap()) return fail("{}expected a mapping", where(c, n));
  std::set<std::string> seen;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) return fail("{}keys must be plain words", where(c, kv.first));
    auto k = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), k) == known.end())
      return fail("{}unknown key `{}`{}", where(c, kv.first), k, hint(k, known));
    if (!seen.insert(k).second) return fail("{}key `{}` given twice", where(c, kv.first), k);
  }
  return {};
}

Result<bool> as_bool(const YAML::Node& n, const Ctx& c) {
  if (n.IsScalar()) {
    const auto& s = n.Scalar();
    if (s == "true") return true;
    if (s == "false") return false;
  }
  return fail("{}expected true or false", where(c, n));
}

Result<uint64_t> as_count(const YAML::Node& n, const Ctx& c, uint64_t max, bool sizes) {
  if (!n.IsScalar() || n.Scalar().empty()) return fail("{}expected a number", where(c, n));
  std::string s = n.Scalar();
  uint64_t mult = 1;
  if (sizes && s.size() > 1) {
    char u = s.back();
    if (u == 'K' || u == 'k') mult = 1u << 10;
    if (u == 'M' || u == 'm') mult = 1u << 20;
    if (u == 'G' || u == 'g') mult = 1u << 30;
    if (mult != 1) s.pop_back();
  }
  uint64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9' || v > (max / 10 + 1))
      return fail("{}expected a whole number{}", where(c, n), sizes ? " (or with K, M, G)" : "");
    v = v * 10 + uint64_t(ch - '0');
  }
  if (v > max / mult) return fail("{}{} is larger than {}", where(c, n), n.Scalar(), max);
  return v * mult;
}

Result<std::vector<std::string>> as_strings(const YAML::Node& n, const Ctx& c) {
  if (!n.IsSequence()) return fail("{}expected a list of strings", where(c, n));
  std::vector<std::string> out;
  for (const auto& e : n) {
    if (!e.IsScalar() || e.Scalar().empty())
      return fail("{}expected a non-empty string", where(c, e));
    out.push_back(e.Scalar());
  }
  return out;
}

Status read_requests(const YAML::Node& n, Ctx c, Bounds& b) {
  std::vector<std::string> types;
  for (const auto& [t, _] : b.max_requests) types.push_back(t);
  AW_CHECK(known_keys(n, c, types));
  std::string base = c.path;
  for (const auto& kv : n) {
    auto type = kv.first.Scalar();
    c.path = base + "." + type;
    const YAML::Node& v = kv.second;
    if (type == "add_labels" && v.IsMap()) {
      AW_CHECK(known_keys(v, c, {"max", "allowed"}));
      if (v["max"]) {
        AW_TRY(uint64_t m, as_count(v["max"], Ctx{c.file, c.path + ".max"}, 100, false));
        b.max_requests[type] = int(m);
      }
      if (v["allowed"]) {
        AW_TRY(b.allowed_labels, as_strings(v["allowed"], Ctx{c.file, c.path + ".allowed"}));
      }
      continue;
    }
    AW_TRY(uint64_t m, as_count(v, c, 100, false));
    b.max_requests[type] = int(m);
  }
  return {};
}

Status valid_unprotect(const std::vector<std::string>& names, const YAML::Node& n, const Ctx& c) {
  for (const auto& s : names) {
    if (std::find(std::begin(kInstructionFiles), std::end(kInstructionFiles), s) !=
        std::end(kInstructionFiles))
      continue;
    bool ok =
        s.size() > 1 && s[0] == '.' && s != ".." &&
        s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
            std::string::npos;
    std::string low = s;
    for (char& ch : low) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (low.rfind(".git", 0) == 0 && low != ".github") ok = false;
    if (!ok)
      return fail(
          "{}`{}` is not a top-level dot-folder name (like .github) nor an instruction file "
          "(AGENTS.md, CLAUDE.md, GEMINI.md, .mcp.json); git's own files cannot be unprotected",
          where(c, n), s);
  }
  return {};
}

}  // namespace

Result<Bounds> bounds_from_yaml(const YAML::Node& node, const std::string& file,
                                const std::string& key_path) {
  Bounds b;
  if (!node || node.IsNull()) return b;
  Ctx c{file, key_path};
  auto sub = [&](const char* k) { return Ctx{file, key_path.empty() ? k : key_path + "." + k}; };
  AW_CHECK(known_keys(node, c,
                      {"max_patch_bytes", "max_patch_files", "requests", "protected", "unprotect",
                       "allow_executables", "allow_binary", "allow_encoded"}));
  try {
    if (auto n = node["max_patch_bytes"]) {
      AW_TRY(b.max_patch_bytes, as_count(n, sub("max_patch_bytes"), 1ull << 32, true));
    }
    if (auto n = node["max_patch_files"]) {
      AW_TRY(uint64_t v, as_count(n, sub("max_patch_files"), 100000, false));
      b.max_patch_files = int(v);
    }
    if (auto n = node["requests"]) AW_CHECK(read_requests(n, sub("requests"), b));
    if (auto n = node["protected"]) {
      AW_TRY(b.protected_globs, as_strings(n, sub("protected")));
    }
    if (auto n = node["unprotect"]) {
      AW_TRY(b.unprotect, as_strings(n, sub("unprotect")));
      AW_CHECK(valid_unprotect(b.unprotect, n, sub("unprotect")));
    }
    if (auto n = node["allow_encoded"]) {
      AW_TRY(b.allow_encoded, as_strings(n, sub("allow_encoded")));
    }
    if (auto n = node["allow_executables"]) {
      AW_TRY(b.allow_executables, as_bool(n, sub("allow_executables")));
    }
    if (auto n = node["allow_binary"]) {
      AW_TRY(b.allow_binary, as_bool(n, sub("allow_binary")));
    }
  } catch (const YAML::Exception& e) {
    return fail("{}: {}", file, e.what());
  }
  return b;
}

Result<Bounds> parse_bounds(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return fail("{}:{}:{}: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  return bounds_from_yaml(root, file, "");
}

Result<Bounds> load_bounds(const std::string& path) {
  AW_TRY(std::string text, read_file(path, 1u << 20));
  return parse_bounds(text, path);
}

}  // namespace aw
