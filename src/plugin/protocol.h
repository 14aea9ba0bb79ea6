// The wire between awaywork and a plugin: one JSON-RPC 2.0 request written as one line to the
// plugin's stdin (then closed), one response read back as one line from its stdout. What comes
// back is hostile data: it is size-capped, parsed without exceptions, checked against the request
// (version, id, a result object or an error), and never executed; text from it reaches a terminal
// or a log only through inert() (base/inert.h). docs/plugins.md shows the schema of each call.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace aw {

// Past this the plugin's stdout is not read further and the call is refused (a reply is a few
// hundred bytes; a plugin printing megabytes is broken or hostile).
inline constexpr size_t kPluginReplyCap = 256u << 10;
// Of stderr only the last part is kept, for the error message.
inline constexpr size_t kPluginStderrTail = 2048;
// The one id of the one call a plugin process answers.
inline constexpr int kPluginCallId = 1;

// The plugin's own words, as an error or a record may quote them: inert, one line, cut to 200
// characters.
std::string plugin_words(std::string_view text);

// The request line, newline-terminated.
std::string rpc_request(std::string_view method, const nlohmann::json& params);

// The "result" object of the plugin's reply. `out` is everything it printed on stdout; the reply
// is its first line (anything after it is ignored: a plugin answers once). Errors name the plugin
// and what was wrong, and quote the plugin's own error text only made inert and cut short.
Result<nlohmann::json> rpc_reply(std::string_view out, std::string_view plugin);

}  // namespace aw
