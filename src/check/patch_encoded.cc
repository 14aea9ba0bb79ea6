// The encoded-data rule (patch.encoded): with the network closed, the patch is the way out, and a
// base64 dump of a cookie database passes every token-shaped check. Added text carrying a long
// run of base64 or hex is refused, unless the repository's bounds list the path in allow_encoded.
//
// Two shapes count: one run of the base64/hex alphabet (A-Z a-z 0-9 + / = _ -, with a digit in
// it) of kMaxRun characters or more on one line; and a block of consecutive added lines that are
// each nothing but such a run of at least kWrappedLine characters (base64 wrapped at 64 or 76, a
// JSON array of chunks: quotes, commas and spaces around the run are ignored) adding up to kMaxRun.
// C and percent escapes (\x4f, %4F, 0x4f,) count towards a block the same way.
//
// Tuned on real lockfiles (measured with the same definition, see docs/sandbox.md): the longest
// run in an npm package-lock.json (11,178 lines) is 102 characters (sha512 integrity), in a
// yarn.lock 109, in a Cargo.lock 64 (sha256 hex), in a go.sum 44; none has a block at all. 1 KiB
// leaves those ten times under the bound; a 2048-bit PEM certificate (about 1.2 KiB) is over it:
// a repository with such fixtures lists them in allow_encoded.
#include <fmt/format.h>

#include "check/patch_rules.h"

namespace aw {
namespace {

constexpr size_t kMaxRun = 1024;
constexpr size_t kWrappedLine = 40;

bool alphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '=' || c == '_' || c == '-';
}

bool hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The longest run of the alphabet in line that has a digit in it (a word is not data).
size_t longest_run(std::string_view line) {
  size_t best = 0;
  for (size_t i = 0; i < line.size();) {
    if (!alphabet(line[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    bool digit = false;
    while (j < line.size() && alphabet(line[j]))
      digit = digit || (line[j] >= '0' && line[j] <= '9'), ++j;
    if (digit) best = std::max(best, j - i);
    i = j;
  }
  return best;
}

std::string_view trim(std::string_view s) {
  auto junk = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '"' || c == '\'' || c == '`' || c == ',' ||
           c == ';' || c == '\\' || c == '[' || c == ']' || c == '(' || c == ')';
  };
  while (!s.empty() && junk(s.front())) s.remove_prefix(1);
  while (!s.empty() && junk(s.back())) s.remove_suffix(1);
  return s;
}

// Characters of line that are escaped bytes (\xNN, %NN, 0xNN), when they are most of it.
size_t escaped_bytes(std::string_view line) {
  size_t covered = 0, visible = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != ' ' && line[i] != ',' && line[i] != '\t') ++visible;
    bool x = i + 3 < line.size() && (line[i] == '\\' || line[i] == '0') &&
             (line[i + 1] == 'x' || line[i + 1] == 'X') && hex(line[i + 2]) && hex(line[i + 3]);
    bool pct = i + 2 < line.size() && line[i] == '%' && hex(line[i + 1]) && hex(line[i + 2]);
    if (x) covered += 4, visible += 3, i += 3;
    if (pct) covered += 3, visible += 2, i += 2;
  }
  return visible > 0 && covered * 2 >= visible ? covered : 0;
}

// How much of a wrapped block this added line is (0: it ends one).
size_t block_part(std::string_view line) {
  if (size_t e = escaped_bytes(line); e >= kWrappedLine) return e;
  std::string_view t = trim(line);
  if (t.size() < kWrappedLine) return 0;
  for (char c : t)
    if (!alphabet(c)) return 0;
  return longest_run(t) == t.size() ? t.size() : 0;
}

bool allowed(const std::string& path, const Bounds& bounds) {
  for (const auto& g : bounds.allow_encoded)
    if (glob_match(g, path)) return true;
  return false;
}

}  // namespace

void check_encoded(std::string_view patch, const ParsedPatch& parsed, const Bounds& bounds,
                   std::vector<Refusal>& out) {
  size_t file = 0, block = 0, line_no = 0;
  int block_start = 0;
  bool in_hunk = false, refused = false;
  std::string path;
  for (size_t at = 0; at < patch.size();) {
    size_t end = patch.find('\n', at);
    if (end == std::string_view::npos) end = patch.size();
    std::string_view line = patch.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.rfind("diff --git ", 0) == 0) {
      in_hunk = refused = false;
      block = 0;
      path.clear();
      while (file < parsed.files.size() && size_t(parsed.files[file].line) <= line_no)
        path = parsed.files[file++].path;
      continue;
    }
    if (line.rfind("@@ ", 0) == 0) in_hunk = true;
    bool added = in_hunk && !line.empty() && line[0] == '+';
    if (!added || refused || allowed(path, bounds)) {
      if (line.empty() || line[0] != '\\') block = 0;  // "\ No newline" does not end a block
      continue;
    }
    line.remove_prefix(1);
    size_t run = longest_run(line), part = block_part(line);
    if (part == 0) block = 0;
    if (block == 0) block_start = int(line_no);
    block += part;
    if (run < kMaxRun && block < kMaxRun) continue;
    refused = true;  // one refusal per file is enough to read
    std::string what =
        run >= kMaxRun
            ? fmt::format("a run of {} base64/hex characters on one added line", run)
            : fmt::format("{}+ characters of base64/hex in consecutive added lines", block);
    out.push_back({"patch.encoded", path, run >= kMaxRun ? int(line_no) : block_start,
                   fmt::format("{} (the bound is {}): encoded data is refused unless the "
                               "repository's bounds list the path in allow_encoded",
                               what, kMaxRun),
                   "patch"});
  }
}

}  // namespace aw
