// Rules on a parsed patch: path shape, protected paths, modes, binaries, counts and sizes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/bounds.h"
#include "check/patch_parse.h"

namespace aw {

// Append a refusal per broken rule of each file and of the patch as a whole.
void check_patch_rules(const ParsedPatch& parsed, size_t patch_bytes, const Bounds& bounds,
                       std::vector<Refusal>& refusals);

// patch.encoded: added text carrying a long run of base64 or hex (patch_encoded.cc), unless the
// bounds' allow_encoded globs name the file. patch is the text parsed was made from.
void check_encoded(std::string_view patch, const ParsedPatch& parsed, const Bounds& bounds,
                   std::vector<Refusal>& refusals);

// The rule a path breaks by its shape alone (path.*), or nullopt when it is a plain name.
std::optional<Refusal> check_path_shape(std::string_view path);

// Why path is protected ("" when it is not).
std::string protected_reason(std::string_view path, const Bounds& bounds);

// Glob with `*` (within a component), `?`, `**` (any number of components). A pattern without
// `/` matches a file or folder name at any depth; a pattern ending in `/` matches below it.
bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace aw
