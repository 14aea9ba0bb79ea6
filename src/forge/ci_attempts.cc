#include "forge/ci_attempts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "forge/marker.h"

namespace aw {

bool ci_attempts_spent(int fixes_in_a_row, int max_attempts) {
  return fixes_in_a_row >= max_attempts;
}

std::optional<CiLimit> ci_limit_reached(const std::vector<std::vector<std::string>>& attempts,
                                        const std::vector<std::string>& failing_now,
                                        int max_attempts) {
  for (const std::string& check : failing_now) {
    int fixes = 0;
    for (auto it = attempts.rbegin(); it != attempts.rend(); ++it) {
      if (std::find(it->begin(), it->end(), check) == it->end()) break;
      ++fixes;
    }
    if (ci_attempts_spent(fixes, max_attempts)) return CiLimit{check, fixes};
  }
  return std::nullopt;
}

bool named_in_check_list(std::string_view list, std::string_view name) {
  constexpr std::string_view sep = ", ";
  if (name.empty()) return false;
  for (size_t at = list.find(name); at != std::string_view::npos; at = list.find(name, at + 1)) {
    size_t end = at + name.size();
    bool starts = at == 0 || (at >= sep.size() && list.substr(at - sep.size(), sep.size()) == sep);
    bool ends = end == list.size() || list.substr(end, sep.size()) == sep;
    if (starts && ends) return true;
  }
  return false;
}

std::string ci_name_for_post(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (out.size() >= 100) {
      out += "...";
      break;
    }
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view(" ._/:()-").find(c) != std::string_view::npos;
    out += ok ? c : '?';
  }
  return out;
}

std::string ci_limit_marker(int64_t number) {
  return fmt::format("<!-- awaywork:follow-up pr={} item=ci-limit -->", number);
}

std::string ci_limit_comment(const std::string& check, int fixes, int max) {
  // Worded as watch's note (watcher_pulls.cc) counts: the first failing head, then one per fix.
  return fmt::format(
      "awaywork stopped fixing the check `{}`: it failed on {} heads of this pull request in a "
      "row, {} after a fix, the repository's limit (follow_up: {{max_ci_attempts: {}}}). No more "
      "follow-up starts for it; a person takes it from here, or raises the limit in awaywork's "
      "config.",
      check, fixes + 1, fixes, max);
}

namespace {

bool same_login(std::string_view a, std::string_view b) {
  // Logins are case-insensitive on both forges.
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

Status within_ci_limit(const std::vector<std::vector<std::string>>& tried,
                       const std::vector<std::string>& failing_now, int max_attempts,
                       int64_t number, const std::vector<ForgeComment>& conversation,
                       const std::string& self_login, std::string_view request,
                       const PostCiLimit& post) {
  std::optional<CiLimit> stop = ci_limit_reached(tried, failing_now, max_attempts);
  if (!stop) return {};
  const std::string name = ci_name_for_post(stop->check);
  const std::string marker = ci_limit_marker(number);
  bool said = false;
  for (const ForgeComment& c : conversation) {
    // Only awaywork's own comment counts: anyone may write the marker's text.
    auto m = trailing_marker(c.body);
    if (m && !self_login.empty() && same_login(c.author.login, self_login) &&
        fmt::format("<!-- awaywork:{} -->", *m) == marker)
      said = true;
  }
  std::string told = fmt::format("it was said on the {} already", request);
  if (!said) {
    Status made = post(ci_limit_comment(name, stop->fixes, max_attempts), marker);
    told = made ? fmt::format("awaywork said so on the {}", request)
                : fmt::format("saying so on the {} failed: {}", request, made.error().message);
  }
  return fail(
      "the check `{}` still fails after {} follow-up(s) in a row that tried to fix it, the "
      "repository's limit (follow_up: {{max_ci_attempts: {}}}); no follow-up starts while it "
      "fails ({}). A person takes it from here, or raises the limit in awaywork's config",
      name, stop->fixes, max_attempts, told);
}

}  // namespace aw
