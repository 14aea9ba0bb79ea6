// A JSON string's inside, byte for byte, for JSON lines written by hand where nlohmann is not
// linked (the static leak-suite program, isolate/probe/probes.cc) or not wanted (the egress
// proxy's log line, proxy/egress_proxy.cc).
#pragma once

#include <string>

namespace aw {

// '"' and '\\' escaped, control bytes as \u00XX, every other byte (invalid UTF-8 too) as it is:
// the readers of these lines take the bytes as they come.
std::string json_escape_bytes(const std::string& s);

}  // namespace aw
