// The forge's answers on arbitrary bytes: parsing never crashes or throws, whatever the JSON;
// the task built from a parsed issue is fenced and carries nothing invisible; Link headers too.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "check/invisible.h"
#include "forge/link.h"
#include "forge/model.h"
#include "forge/task.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)aw::link_next(text);
  (void)aw::target_under(text, "https://api.github.com");
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  (void)aw::user_from_json(j, "fuzz");
  (void)aw::repo_from_json(j, "fuzz");
  (void)aw::pull_from_json(j, "fuzz");
  (void)aw::role_from_json(j, "fuzz");
  (void)aw::comments_from_json(j, "fuzz");
  auto issue = aw::issue_from_json(j, "fuzz");
  if (!issue) return 0;
  aw::IssueTask t;
  t.repo = "o/r";
  t.issue = *issue;
  t.author_trust = "fuzz";
  std::string task = aw::build_issue_task(t);
  // Nothing invisible survives, and the whole stays within its cap.
  for (std::string_view bad : {"\xE2\x80\xAE", "\xE2\x80\x8B", "\x1b", "\xEF\xBB\xBF", "\r"})
    if (task.find(bad) != std::string::npos) std::abort();
  // Nor any default-ignorable code point (variation selectors, tags...) but one VS15/VS16 after
  // an emoji (issue 41): what awaywork wrote itself is plain ASCII.
  int32_t prev = -1;
  for (size_t i = 0; i < task.size();) {
    auto c = static_cast<unsigned char>(task[i]);
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (i + n > task.size()) std::abort();
    int32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < n; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(task[i + k]) & 0x3F);
    if (aw::drop_invisible(prev, cp)) std::abort();
    prev = cp;
    i += n;
  }
  if (task.size() > aw::kTaskMaxBytes + 1024) std::abort();
  // The body's fence is longer than any backtick run in the cleaned body.
  std::string body = aw::clean_for_prompt(issue->body);
  if (body.find(aw::fence_for(body)) != std::string::npos) std::abort();
  return 0;
}
