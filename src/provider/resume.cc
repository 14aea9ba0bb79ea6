// Continuing a session (resume.h). Checked against the CLIs' own layouts: Claude Code 2.1.332
// writes ~/.claude/projects/<cwd, each character but [A-Za-z0-9] as '->/<session uuid>.jsonl
// (subagents' files are agent-*.jsonl beside it, or in a folder: not sessions to resume) and takes
// `--resume <uuid>` with -p; Codex 0.171.0 writes
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl and finds a session
// by its uuid anywhere below sessions/ with `codex exec [options] resume <uuid> [prompt]`, where a
// prompt "-" is read from stdin as exec's own.
#include "provider/resume.h"

#include <fmt/ranges.h>

#include <cctype>
#include <vector>

namespace aw {

namespace {

constexpr std::string_view kJsonl = ".jsonl";
constexpr std::string_view kRollout = "rollout-";

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool digits(std::string_view s, size_t n) {
  if (s.size() != n) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// A name awaywork writes back as it is: no '/', no leading dot, letters, digits, '-', '_', '.'.
bool plain_name(std::string_view s) {
  if (s.empty() || s.size() > 255 || s.front() == '.') return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

std::vector<std::string_view> parts_of(std::string_view rel) {
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    size_t slash = rel.find('/', from);
    parts.push_back(rel.substr(from, slash == std::string_view::npos ? slash : slash - from));
    if (slash == std::string_view::npos) return parts;
    from = slash + 1;
  }
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The uuid of a file name of the provider's sessions ("" = none).
std::string_view uuid_of(const std::string& provider, std::string_view name) {
  if (!plain_name(name) || !ends_with(name, kJsonl)) return {};
  std::string_view stem = name.substr(0, name.size() - kJsonl.size());
  if (provider == "claude") return is_uuid(stem) ? stem : std::string_view{};
  if (provider != "codex" || stem.substr(0, kRollout.size()) != kRollout || stem.size() < 37)
    return {};
  std::string_view id = stem.substr(stem.size() - 36);
  return stem[stem.size() - 37] == '-' && is_uuid(id) ? id : std::string_view{};
}

}  // namespace

std::optional<SessionFiles> session_files(const ProviderSpec& spec) {
  if (spec.name == "claude") return SessionFiles{".claude/projects", 1};
  if (spec.name == "codex") return SessionFiles{".codex/sessions", 3};
  return std::nullopt;
}

bool is_session_file(const ProviderSpec& spec, const std::string& rel) {
  auto files = session_files(spec);
  if (!files) return false;
  auto parts = parts_of(rel);
  if (parts.size() != static_cast<size_t>(files->depth) + 1) return false;
  for (auto p : parts)
    if (!plain_name(p)) return false;
  if (spec.name == "codex" && !(digits(parts[0], 4) && digits(parts[1], 2) && digits(parts[2], 2)))
    return false;
  return !uuid_of(spec.name, parts.back()).empty();
}

std::string session_place(const ProviderSpec& spec, const std::string& rel,
                          const std::string& clone) {
  if (spec.name != "claude") return rel;
  std::string project = clone;
  for (char& c : project)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return project + rel.substr(rel.rfind('/'));
}

std::string session_id(const ProviderSpec& spec, const std::string& rel) {
  if (!is_session_file(spec, rel)) return "";
  return std::string(uuid_of(spec.name, rel.substr(rel.rfind('/') + 1)));
}

Result<Argv> with_resume(const ProviderSpec& spec, Argv argv, const std::string& id) {
  if (!is_uuid(id)) return fail("provider {}: the session id '{}' is not a uuid", spec.name, id);
  if (argv.empty()) return fail("provider {}: no command to resume a session with", spec.name);
  if (spec.name == "claude") {
    argv.insert(argv.end(), {"--resume", id});
    return argv;
  }
  if (spec.name == "codex") {
    // `resume` is exec's subcommand: exec's options (and awaywork's -c overrides) stay before it,
    // and the prompt read from stdin is resume's own positional.
    if (argv.size() < 3 || argv[1] != "exec" || argv.back() != "-")
      return fail(
          "provider codex: the command must be `codex exec ... -` (the prompt from stdin) to "
          "resume a session; it is '{}'",
          fmt::format("{}", fmt::join(argv, " ")));
    argv.back() = "resume";
    argv.insert(argv.end(), {id, "-"});
    return argv;
  }
  return fail("provider {} cannot continue a session", spec.name);
}

}  // namespace aw
