#include "plugin/protocol.h"

#include <fmt/format.h>

#include "base/inert.h"
#include "base/json_read.h"
#include "base/json_write.h"

namespace aw {

std::string plugin_words(std::string_view text) {
  constexpr size_t kMax = 200;
  std::string line = inert_line(text.substr(0, kMax));
  if (text.size() > kMax) line += "...";
  return line;
}

std::string rpc_request(std::string_view method, const nlohmann::json& params) {
  nlohmann::json j = {{"jsonrpc", "2.0"},
                      {"id", kPluginCallId},
                      {"method", std::string(method)},
                      {"params", params}};
  // json_text: params carry text awaywork did not write (a unit's title), which may not be UTF-8.
  return json_text(j) + "\n";
}

Result<nlohmann::json> rpc_reply(std::string_view out, std::string_view plugin) {
  if (out.size() > kPluginReplyCap)
    return fail("plugin {}: its reply is larger than {} KiB; a reply is one JSON line", plugin,
                kPluginReplyCap >> 10);
  size_t nl = out.find('\n');
  std::string_view line = out.substr(0, nl);
  if (line.find_first_not_of(" \t\r") == std::string_view::npos)
    return fail("plugin {}: printed no reply; it must print one JSON-RPC response line on stdout",
                plugin);
  // No exceptions: a parse error is a discarded value (allow_exceptions = false).
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("plugin {}: its reply is not a JSON object: {}", plugin, plugin_words(line));
  std::string what = fmt::format("plugin {}'s reply", plugin);
  JsonRead r(j, what);
  AW_TRY(std::string version, r.str("jsonrpc"));
  if (version != "2.0") return fail("{}: \"jsonrpc\" must be \"2.0\"", what);
  AW_TRY(int64_t id, r.int_in<int64_t>("id"));
  if (id != kPluginCallId) return fail("{}: \"id\" must be {}, the request's", what, kPluginCallId);
  bool has_result = j.contains("result"), has_error = j.contains("error");
  if (has_result == has_error)
    return fail("{}: must hold exactly one of \"result\" and \"error\"", what);
  if (has_error) {
    AW_TRY(JsonRead e, r.object("error"));
    AW_TRY(int64_t code, e.int_in<int64_t>("code"));
    AW_TRY(std::string message, e.str("message"));
    return fail("plugin {} answered error {}: {}", plugin, code, plugin_words(message));
  }
  AW_TRY(JsonRead result, r.object("result"));
  return result.json();
}

}  // namespace aw
