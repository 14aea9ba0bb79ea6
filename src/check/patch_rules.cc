// Rules on the parsed file records. Paths are judged on their bytes as git printed them; anything
// that could be read two ways (case, Unicode forms, look-alike scripts, invisible characters) is
// refused rather than interpreted.
#include "check/patch_rules.h"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "check/invisible.h"

namespace aw {
namespace {

Refusal path_refusal(std::string rule, std::string_view path, std::string detail) {
  return Refusal{std::move(rule), std::string(path), 0, std::move(detail), "patch"};
}

bool is_bidi(int32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

// Characters that render as nothing (every default-ignorable code point, check/invisible.h): a
// name containing one looks like another name.
bool is_invisible(int32_t c) {
  return default_ignorable(c) || c == 0x2028 || c == 0x2029;
}

enum Script { kNone = 0, kLatin = 1, kGreek = 2, kCyrillic = 4, kArmenian = 8, kCherokee = 16 };

int script_of(int32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
      (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x1E00 && c <= 0x1EFF))
    return kLatin;
  if ((c >= 0x370 && c <= 0x3FF) || (c >= 0x1F00 && c <= 0x1FFF)) return kGreek;
  if (c >= 0x400 && c <= 0x52F) return kCyrillic;
  if (c >= 0x530 && c <= 0x58F) return kArmenian;
  if (c >= 0x13A0 && c <= 0x13FF) return kCherokee;
  return kNone;
}

// Fullwidth forms and mathematical letters exist only to look like ASCII.
bool is_lookalike(int32_t c) {
  return (c >= 0xFF01 && c <= 0xFF5E) || (c >= 0x1D400 && c <= 0x1D7FF) ||
         (c >= 0x2100 && c <= 0x214F) || c == 0x2215 || c == 0x2044 || c == 0xFF0F || c == 0x29F8 ||
         c == 0x2024 || c == 0xFE52 || c == 0xFF0E;
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return o;
}

std::vector<std::string_view> split(std::string_view p) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t s = p.find('/', start);
    out.push_back(p.substr(start, s == std::string_view::npos ? p.npos : s - start));
    if (s == std::string_view::npos) break;
    start = s + 1;
  }
  return out;
}

bool glob_here(std::string_view pat, std::string_view s) {
  // Within one component: * and ? never match '/'.
  size_t p = 0, i = 0, star_p = std::string_view::npos, star_i = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' ? s[i] != '/' : pat[p] == s[i]) && pat[p] != '*') {
      ++p, ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star_p = p++, star_i = i;
    } else if (star_p != std::string_view::npos && s[star_i] != '/') {
      p = star_p + 1, i = ++star_i;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

bool glob_parts(const std::vector<std::string_view>& pat, size_t pi,
                const std::vector<std::string_view>& path, size_t si) {
  if (pi == pat.size()) return si == path.size();
  if (pat[pi] == "**") {
    for (size_t k = si; k <= path.size(); ++k)
      if (glob_parts(pat, pi + 1, path, k)) return true;
    return false;
  }
  if (si == path.size()) return false;
  return glob_here(pat[pi], path[si]) && glob_parts(pat, pi + 1, path, si + 1);
}

constexpr std::string_view kProtectedNames[] = {".pre-commit-config.yaml",
                                                ".pre-commit-hooks.yaml",
                                                "lefthook.yml",
                                                "lefthook.yaml",
                                                ".lefthook.yml",
                                                ".lefthook.yaml",
                                                "lefthook-local.yml",
                                                ".gitlab-ci.yml",
                                                ".travis.yml",
                                                "Jenkinsfile",
                                                ".envrc",
                                                "CODEOWNERS",
                                                ".husky",
                                                ".circleci",
                                                "azure-pipelines.yml",
                                                ".drone.yml",
                                                "bitbucket-pipelines.yml",
                                                "appveyor.yml",
                                                ".appveyor.yml"};

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  if (pattern.empty()) return false;
  bool dir = pattern.back() == '/';
  std::string pat(pattern);
  if (dir) pat += "**";
  if (pat.find('/') == std::string::npos)
    pat = "**/" + pat + "/**";  // a name at any depth
  else if (pat.front() == '/')
    pat.erase(0, 1);
  auto pp = split(pat), sp = split(path);
  // "x/**" also matches x itself; a name pattern matches the file or anything below it.
  if (pp.size() > 1 && pp.back() == "**" && glob_parts(pp, 0, sp, 0)) return true;
  return glob_parts(pp, 0, sp, 0);
}

std::optional<Refusal> check_path_shape(std::string_view path) {
  if (path.empty()) return path_refusal("path.malformed", path, "an empty path");
  if (path.find('\0') != std::string_view::npos)
    return path_refusal("path.nul", path, "a NUL byte in the path");
  if (path.size() > 4096) return path_refusal("path.too_long", path, "path longer than 4096 bytes");
  // Decode once; refuse invalid UTF-8, controls, bidi and invisible characters.
  int scripts_seen = 0;
  bool any_non_ascii = false;
  for (size_t i = 0; i < path.size();) {
    utf8proc_int32_t cp;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(path.data() + i),
                              utf8proc_ssize_t(path.size() - i), &cp);
    if (n <= 0) return path_refusal("path.utf8", path, "the path is not valid UTF-8");
    i += size_t(n);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
      return path_refusal("path.control", path, fmt::format("control character U+{:04X}", cp));
    if (is_bidi(cp))
      return path_refusal("path.bidi", path, fmt::format("bidi control U+{:04X}", cp));
    if (is_invisible(cp))
      return path_refusal("path.invisible", path, fmt::format("invisible character U+{:04X}", cp));
    if (is_lookalike(cp))
      return path_refusal("path.homoglyph", path, fmt::format("look-alike character U+{:04X}", cp));
    if (cp >= 0x80) any_non_ascii = true;
    if (cp == '/') scripts_seen = 0;
    scripts_seen |= script_of(cp);
    if ((scripts_seen & kLatin) && (scripts_seen & ~kLatin))
      return path_refusal("path.homoglyph", path, "a name mixes Latin with a look-alike script");
  }
  if (path.front() == '/') return path_refusal("path.absolute", path, "an absolute path");
  if (path.find('\\') != std::string_view::npos)
    return path_refusal("path.backslash", path, "a backslash in the path");
  for (auto c : split(path)) {
    if (c == "..") return path_refusal("path.traversal", path, "a `..` component");
    if (c.empty() || c == ".")
      return path_refusal("path.malformed", path, "an empty or `.` component");
    if (c.size() > 255) return path_refusal("path.too_long", path, "a component over 255 bytes");
  }
  if (any_non_ascii) {
    auto* nfc = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(std::string(path).c_str()));
    bool same = nfc && std::string_view(reinterpret_cast<char*>(nfc)) == path;
    std::free(nfc);
    if (!same) return path_refusal("path.not_nfc", path, "the path is not in Unicode NFC");
  }
  return std::nullopt;
}

std::string protected_reason(std::string_view path, const Bounds& bounds) {
  auto parts = split(path);
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string c = lower(parts[i]);
    // .git* at any depth, in any case (case-insensitive filesystems), and its 8.3 short name.
    // `.github` is the forge's folder, not git's: the top-level dot-folder rule covers it.
    if ((c.rfind(".git", 0) == 0 && c != ".github") || c.rfind("git~", 0) == 0)
      return fmt::format("`{}` is git metadata", parts[i]);
    for (auto name : kProtectedNames)
      if (parts[i] == name) return fmt::format("`{}` is a hook, CI or ownership file", name);
    // What an agent CLI loads as instructions or tools, at any depth: a later agent run on the
    // repository would take it as trusted (DESIGN.md section 9, 10).
    for (auto name : kInstructionFiles)
      if (parts[i] == name && std::find(bounds.unprotect.begin(), bounds.unprotect.end(), name) ==
                                  bounds.unprotect.end())
        return fmt::format("`{}` is an agent instruction file (not in unprotect)", name);
  }
  if (parts.size() > 1 && parts[0].size() > 1 && parts[0][0] == '.' &&
      std::find(bounds.unprotect.begin(), bounds.unprotect.end(), parts[0]) ==
          bounds.unprotect.end())
    return fmt::format("`{}/` is a top-level dot-folder (not in unprotect)", parts[0]);
  for (const auto& g : bounds.protected_globs)
    if (glob_match(g, path)) return fmt::format("matches the owner's protected glob `{}`", g);
  return "";
}

void check_patch_rules(const ParsedPatch& parsed, size_t patch_bytes, const Bounds& bounds,
                       std::vector<Refusal>& out) {
  auto add = [&](const FileRecord& f, std::string rule, std::string detail) {
    out.push_back(Refusal{std::move(rule), f.path, f.line, std::move(detail), "patch"});
  };
  if (patch_bytes > bounds.max_patch_bytes)
    out.push_back({"patch.too_big", "", 0,
                   fmt::format("{} bytes, the bound is {}", patch_bytes, bounds.max_patch_bytes),
                   "patch"});
  if (parsed.files.size() > size_t(bounds.max_patch_files))
    out.push_back(
        {"patch.too_many_files", "", 0,
         fmt::format("{} files, the bound is {}", parsed.files.size(), bounds.max_patch_files),
         "patch"});
  std::set<std::string> seen;
  std::map<std::string, std::string> folded;
  for (const auto& f : parsed.files) {
    if (f.path.empty()) continue;  // the header itself was refused by the parser
    if (auto r = check_path_shape(f.path)) {
      r->line = f.line;
      out.push_back(*r);
      continue;
    }
    if (!seen.insert(f.path).second) add(f, "patch.duplicate_path", "the path appears twice");
    auto [it, fresh] = folded.emplace(lower(f.path), f.path);
    if (!fresh && it->second != f.path)
      add(f, "path.case_collision", fmt::format("differs from `{}` only in case", it->second));
    if (auto why = protected_reason(f.path, bounds); !why.empty()) add(f, "path.protected", why);
    if (f.renamed) add(f, "file.rename", "renames are not allowed");
    if (f.copied) add(f, "file.copy", "copies are not allowed");
    if (f.mode_changed)
      add(f, "mode.change", fmt::format("mode {:o} -> {:o}", f.old_mode, f.new_mode));
    for (unsigned m : {f.old_mode, f.new_mode}) {
      if (m == 0 || m == 0100644 || m == 0100755) continue;
      if (m == 0120000)
        add(f, "file.symlink", "symbolic links are not allowed");
      else if (m == 0160000)
        add(f, "file.submodule", "submodules are not allowed");
      else
        add(f, "mode.invalid", fmt::format("mode {:o} is not a file mode git writes", m));
      break;
    }
    bool becomes_exec = f.new_mode == 0100755 && (f.change == FileChange::added || f.mode_changed);
    if (becomes_exec && !bounds.allow_executables)
      add(f, "file.executable", "a new executable file (allow_executables is off)");
    if (f.binary && !bounds.allow_binary)
      add(f, "file.binary", "a binary change (allow_binary is off)");
    else if (f.binary && !f.binary_data)
      add(f, "file.binary", "a binary change without binary data (not appliable)");
  }
}

}  // namespace aw
