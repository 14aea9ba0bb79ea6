// The server's access token: 32 random bytes from getrandom(2), hex, kept in STATE/serve/token
// (folder 0700, file 0600) and reused by every later start. Never logged.
//   AW_TRY(std::string token, load_or_make_token(state_dir));
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

Result<std::string> load_or_make_token(const std::string& state_dir);

}  // namespace aw
