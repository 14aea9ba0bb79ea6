#include "config/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace aw {

size_t levenshtein(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

static std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string suggest(std::string_view word, const std::vector<std::string>& options) {
  if (word.empty()) return "";
  std::string w = lower(word);
  const std::string* best = nullptr;
  size_t best_d = 3;
  for (const auto& o : options) {
    size_t d = levenshtein(w, lower(o));
    if (d < best_d && d < w.size()) best = &o, best_d = d;
  }
  if (best) return *best;
  // A prefix catches truncations ("env_vars" for "env", "sand" for "sandbox") that are too far
  // apart for the edit distance.
  if (w.size() < 2) return "";
  for (const auto& o : options) {
    std::string l = lower(o);
    if (l.size() >= 2 && (l.starts_with(w) || w.starts_with(l))) return o;
  }
  return "";
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& options) {
  std::string s = suggest(word, options);
  return s.empty() ? "" : fmt::format("; did you mean '{}'?", s);
}

}  // namespace aw
