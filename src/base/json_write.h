// Writing JSON as text, without exceptions. nlohmann's dump() with its default error handler
// throws type_error 316 on a string that is not valid UTF-8, and text from the agent or the forge
// (a result, a transcript line, a request, a comment) may hold any bytes: such a throw would lose
// the record being written, or end the phase writing it (DESIGN.md section 9, invariant 7). Every
// dump of JSON that may hold such text goes through json_text, which writes each byte that is not
// UTF-8 as U+FFFD instead, and writes everything else.
//
//   AW_CHECK(write_file(file, json_text(to_json(u), 2) + "\n", 0600));  // indented by 2
//   std::string line = json_text(event);                               // one line
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace aw {

// indent < 0: one line; otherwise that many spaces a level, as nlohmann's dump(indent).
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace aw
