#include "provider/login.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace aw {

const std::vector<std::string_view>& login_variables(std::string_view provider) {
  // The variables each CLI documents for a headless login (claude 2.1.332 `setup-token`, codex
  // 0.171.0, cursor-agent's docs, gemini 0.61.0; opencode reads its providers' usual keys).
  static const std::map<std::string_view, std::vector<std::string_view>> vars = {
      {"claude", {"CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY"}},
      {"codex", {"OPENAI_API_KEY", "CODEX_API_KEY"}},
      {"cursor", {"CURSOR_API_KEY"}},
      {"opencode", {"ANTHROPIC_API_KEY"}},
      {"gemini", {"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
  };
  static const std::vector<std::string_view> none;
  auto it = vars.find(provider);
  return it == vars.end() ? none : it->second;
}

Status check_login(const ProviderSpec& spec, const LoginSources& s) {
  const auto& vars = login_variables(spec.name);
  if (vars.empty() || s.inference || (spec.name == "codex" && s.lend_login)) return {};
  for (const auto& n : s.env_names)
    if (std::find(vars.begin(), vars.end(), n) != vars.end()) return {};
  std::vector<std::string> ways;
  if (!spec.api.empty())
    ways.push_back(fmt::format(
        "an `inference:` upstream (`agents.{}.inference: NAME`, an entry under `inference:` "
        "with `api: {}`; the real key stays outside the unit)",
        s.agent, spec.api));
  ways.push_back(fmt::format(
      "{} in the unit's profile (`profiles: NAME: {{secrets: [{}]}}`, stored with `awaywork "
      "secret set {}`, and `agents.{}.profile: NAME`)",
      fmt::join(vars, " or "), vars.front(), vars.front(), s.agent));
  if (spec.name == "codex")
    ways.push_back(fmt::format("a lent Codex login (`agents.{}.lend_login: true`)", s.agent));
  return fail(
      "agent {} (provider {}) has no login: each unit gets a fresh HOME, so the owner's own "
      "login of {} is not seen. Give it one of: {}",
      s.agent, spec.name, spec.command.empty() ? spec.name : spec.command.front(),
      fmt::join(ways, "; or "));
}

}  // namespace aw
