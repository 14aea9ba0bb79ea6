// Does a built-in provider's CLI have a login for the unit? Every unit gets a fresh HOME, so the
// owner's own login (~/.claude, ~/.codex...) is never seen: the CLI logs in only through
// awaywork's inference proxy, a lent Codex login, or its own variable handed by a profile.
//
//   LoginSources s{.agent = "claude", .inference = false, .env_names =
//   {"CLAUDE_CODE_OAUTH_TOKEN"}}; AW_CHECK(check_login(*find_provider("claude"), s));  // ok;
//   without the name: how to give one
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "provider/provider.h"

namespace aw {

// The variables through which a provider's CLI reads its own login (empty for `command`).
const std::vector<std::string_view>& login_variables(std::string_view provider);

struct LoginSources {
  std::string agent;                   // the agent's name in the config (for the message)
  bool inference = false;              // the agent names an `inference:` upstream
  bool lend_login = false;             // codex: the owner's auth.json is lent
  std::vector<std::string> env_names;  // variables the agent phase will have (profile, agent env)
};

// Ok when the provider needs no login (command) or one of its sources is given; else an Error
// naming what is missing and each way to give it.
Status check_login(const ProviderSpec& spec, const LoginSources& s);

}  // namespace aw
