// net: and read: of a program awaywork runs in a sandbox of its own (a plugin, an MCP server run
// outside the unit): the hosts it reaches through its own egress proxy, and the paths its sandbox
// lends read-only, never all of / or the owner's home. The words name who is lent what, with an
// example, so that each section's errors speak of its own program:
//   parse_grant_net(f.value, ctx, {"the plugin reaches", "hooks.example.com"}, p.net);
//   parse_grant_read(f.value, ctx, {"the plugin", "files", "~/notify/config.json"}, p.read);
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/parse.h"

namespace aw {

struct NetGrantWords {
  std::string_view who_reaches;  // "the plugin reaches"
  std::string_view example;      // a host: "hooks.example.com"
};

struct ReadGrantWords {
  std::string_view who;      // "the plugin"
  std::string_view what;     // what it is lent: "files", "folders"
  std::string_view example;  // a path: "~/notify/config.json"
};

void parse_grant_net(const Value& v, const ParseCtx& ctx, const NetGrantWords& words,
                     std::vector<std::string>& out);
void parse_grant_read(const Value& v, const ParseCtx& ctx, const ReadGrantWords& words,
                      std::vector<std::string>& out);

}  // namespace aw
