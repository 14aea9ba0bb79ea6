// Did-you-mean for misspelt keys and values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aw {

// Edit distance (insertions, deletions, substitutions), case-sensitive.
size_t levenshtein(std::string_view a, std::string_view b);

// The option closest to word: edit distance <= 2 (and less than the word's length, so that a
// one-letter typo does not match everything), else one being a prefix of the other. "" if none.
std::string suggest(std::string_view word, const std::vector<std::string>& options);

// "; did you mean 'x'?" or "" — appended to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& options);

}  // namespace aw
