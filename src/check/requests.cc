// requests.jsonl: one JSON object per line, each of a closed set of types with a closed set of
// fields. The schema is data (kTypes) so that what is accepted can be read in one place.
#include "check/requests.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "check/bounds.h"
#include "check/redact.h"
#include "check/sanitize.h"
#include "check/verdict.h"

namespace aw {
namespace {

enum class Kind { text, labels };

struct Field {
  std::string_view name;
  Kind kind;
  bool required;
  size_t max_chars;  // code points (GitHub counts characters); raw text longer is refused
};

struct TypeSpec {
  std::string_view type;
  std::vector<Field> fields;
};

constexpr size_t kTitle = 256, kBody = 65536, kShort = 4096, kLabel = 50, kMaxLabels = 20;
constexpr int kMaxMentions = 5, kMaxLinks = 20, kMaxDepth = 4;

const std::vector<TypeSpec>& types() {
  static const std::vector<TypeSpec> t = {
      {"create_pull_request",
       {{"title", Kind::text, true, kTitle}, {"body", Kind::text, false, kBody}}},
      {"add_comment", {{"body", Kind::text, true, kBody}}},
      {"add_labels", {{"labels", Kind::labels, true, kLabel}}},
      {"create_issue",
       {{"title", Kind::text, true, kTitle},
        {"body", Kind::text, false, kBody},
        {"labels", Kind::labels, false, kLabel}}},
      {"noop", {{"message", Kind::text, true, kShort}}},
      {"missing_tool", {{"tool", Kind::text, true, kTitle}, {"reason", Kind::text, false, kShort}}},
      {"missing_data", {{"what", Kind::text, true, kShort}, {"reason", Kind::text, false, kShort}}},
  };
  return t;
}

// Names that point a request somewhere other than the unit's own repository, branch or issue.
constexpr std::string_view kRetarget[] = {"repo",         "repository",
                                          "owner",        "base",
                                          "head",         "branch",
                                          "issue",        "issue_number",
                                          "number",       "pull_number",
                                          "pull_request", "pr",
                                          "pr_number",    "comment_id",
                                          "target",       "target_repo",
                                          "in_reply_to",  "url",
                                          "html_url",     "api_url",
                                          "discussion",   "discussion_number",
                                          "commit",       "sha"};

struct LineCheck {
  int line;
  std::vector<Refusal>& out;
  bool ok = true;
  void refuse(std::string rule, std::string detail) {
    out.push_back(Refusal{std::move(rule), "", line, std::move(detail), "requests"});
    ok = false;
  }
};

// Parse one line, refusing duplicate keys (nlohmann keeps the last silently) and deep nesting.
std::optional<nlohmann::json> parse_line(std::string_view text, LineCheck& lc) {
  std::vector<std::set<std::string>> keys;
  bool dup = false;
  int depth_seen = 0;
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    depth_seen = std::max(depth_seen, depth);
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start)
      keys.emplace_back();
    else if (ev == E::object_end && !keys.empty())
      keys.pop_back();
    else if (ev == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      dup = true;
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end(), cb, true, false);
  } catch (const nlohmann::json::parse_error& e) {
    // The library's message quotes the input; the byte offset is enough and leaks nothing.
    lc.refuse("request.json", fmt::format("not valid JSON (at byte {})", e.byte));
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    lc.refuse("request.json", "not valid JSON");
    return std::nullopt;
  }
  if (dup) lc.refuse("request.duplicate_key", "a key appears twice in one object");
  if (depth_seen > kMaxDepth) lc.refuse("request.json", "nested too deeply");
  if (!j.is_object()) lc.refuse("request.not_object", "each line must be one JSON object");
  if (!lc.ok) return std::nullopt;
  return j;
}

bool retarget_ok(const std::string& key, const nlohmann::json& v, const RequestContext& ctx) {
  if ((key == "repo" || key == "repository") && v.is_string() && !ctx.repo.empty())
    return v.get<std::string>() == ctx.repo;
  if (key == "base" && v.is_string() && !ctx.base.empty()) return v.get<std::string>() == ctx.base;
  if ((key == "issue" || key == "issue_number") && v.is_number_integer() && ctx.issue)
    return v.get<long long>() == *ctx.issue;
  return false;
}

size_t field_chars(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Secrets are redacted before and after the invisible characters that could split one are
// removed; the sanitized text (longer, with wrappers and escapes) is cut to the field's cap.
std::string clean(std::string raw, const RequestContext& ctx, const Field& f, SanitizeStats& st) {
  if (f.max_chars <= kTitle)  // one-line fields: joined before sanitizing, never after
    for (char& c : raw)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string s = redact_all(clean_unicode(redact_all(raw, ctx.secrets)), ctx.secrets);
  SanitizeOptions o;
  o.allowed_domains = ctx.allowed_domains;
  o.max_chars = f.max_chars;
  o.repo = ctx.repo;
  if (f.max_chars <= kTitle) return sanitize_title(s, o, &st);  // the one path of every title
  return sanitize_text(s, o, &st);
}

void text_field(const Field& f, const nlohmann::json& v, Request& r, const RequestContext& ctx,
                LineCheck& lc) {
  if (!v.is_string()) {
    lc.refuse("request.field_type", fmt::format("`{}` must be a string", f.name));
    return;
  }
  const auto& raw = v.get_ref<const std::string&>();
  if (size_t n = field_chars(raw); n > f.max_chars) {
    lc.refuse("request.too_long",
              fmt::format("`{}` is {} characters, at most {}", f.name, n, f.max_chars));
    return;
  }
  if (has_marker_form(raw)) {
    lc.refuse("request.marker",
              fmt::format("`{}` contains awaywork's hidden marker form (<!-- awaywork:... -->); "
                          "only the publish step writes markers",
                          f.name));
    return;
  }
  SanitizeStats st;
  std::string s = clean(raw, ctx, f, st);
  if (st.mentions > kMaxMentions)
    lc.refuse("request.mention_flood",
              fmt::format("`{}` has {} @mentions, at most {}", f.name, st.mentions, kMaxMentions));
  if (st.links > kMaxLinks)
    lc.refuse("request.link_flood",
              fmt::format("`{}` has {} links, at most {}", f.name, st.links, kMaxLinks));
  if (f.required && s.find_first_not_of(" \n\t") == std::string::npos)
    lc.refuse("request.empty", fmt::format("`{}` is empty after sanitizing", f.name));
  if (f.name == "title")
    r.title = std::move(s);
  else if (f.name == "body")
    r.body = std::move(s);
  else if (f.name == "message")
    r.message = std::move(s);
  else if (f.name == "tool")
    r.tool = std::move(s);
  else if (f.name == "reason")
    r.reason = std::move(s);
  else if (f.name == "what")
    r.what = std::move(s);
}

void labels_field(const Field& f, const nlohmann::json& v, Request& r, const Bounds& bounds,
                  LineCheck& lc) {
  if (!v.is_array() || v.empty()) {
    lc.refuse("request.field_type", "`labels` must be a non-empty array of strings");
    return;
  }
  if (v.size() > kMaxLabels) {
    lc.refuse("request.too_long", fmt::format("{} labels, at most {}", v.size(), kMaxLabels));
    return;
  }
  for (const auto& l : v) {
    if (!l.is_string()) {
      lc.refuse("request.field_type", "`labels` must contain only strings");
      return;
    }
    const auto& s = l.get_ref<const std::string&>();
    if (field_chars(s) > f.max_chars) {
      lc.refuse("request.too_long", fmt::format("a label is over {} characters", f.max_chars));
      return;
    }
    // Compared on the folded form (GitHub matches labels without case; full-width or
    // invisible characters must not make a second spelling), and what is posted is the
    // owner's own spelling from the list, never the agent's.
    std::string folded = fold_for_compare(s);
    auto owner = std::find_if(bounds.allowed_labels.begin(), bounds.allowed_labels.end(),
                              [&](const std::string& a) { return fold_for_compare(a) == folded; });
    if (owner == bounds.allowed_labels.end() || folded.empty()) {
      lc.refuse("request.label", "a label not in the bounds' allowed list");
      return;
    }
    if (std::find(r.labels.begin(), r.labels.end(), *owner) == r.labels.end())
      r.labels.push_back(*owner);
  }
}

std::optional<Request> one_request(const nlohmann::json& j, const Bounds& bounds,
                                   const RequestContext& ctx, LineCheck& lc) {
  auto t = j.find("type");
  if (t == j.end() || !t->is_string()) {
    lc.refuse("request.type", "missing `type` string");
    return std::nullopt;
  }
  const TypeSpec* spec = nullptr;
  for (const auto& s : types())
    if (s.type == t->get_ref<const std::string&>()) spec = &s;
  if (!spec) {
    lc.refuse("request.type", "unknown request type");
    return std::nullopt;
  }
  Request r;
  r.type = std::string(spec->type);
  r.line = lc.line;
  for (const auto& [key, v] : j.items()) {
    if (key == "type") continue;
    bool retarget = false;
    for (auto name : kRetarget) retarget = retarget || key == name;
    if (retarget) {
      if (!retarget_ok(key, v, ctx))
        lc.refuse("request.retarget",
                  fmt::format("field `{}` would point elsewhere", key.substr(0, 40)));
      continue;
    }
    const Field* f = nullptr;
    for (const auto& fs : spec->fields)
      if (fs.name == key) f = &fs;
    if (!f) {
      lc.refuse("request.unknown_field",
                fmt::format("`{}` has no field `{}`", spec->type, key.substr(0, 40)));
      continue;
    }
    if (f->kind == Kind::text)
      text_field(*f, v, r, ctx, lc);
    else
      labels_field(*f, v, r, bounds, lc);
  }
  for (const auto& f : spec->fields)
    if (f.required && !j.contains(std::string(f.name)))
      lc.refuse("request.missing_field", fmt::format("`{}` needs `{}`", spec->type, f.name));
  if (!lc.ok) return std::nullopt;
  return r;
}

}  // namespace

nlohmann::json to_json(const Request& r) {
  nlohmann::json j = {{"type", r.type}, {"line", r.line}};
  // The texts a request has only when set.
  for (auto [k, v] :
       {std::pair{"title", &r.title}, std::pair{"body", &r.body}, std::pair{"message", &r.message},
        std::pair{"tool", &r.tool}, std::pair{"reason", &r.reason}, std::pair{"what", &r.what}})
    if (!v->empty()) j[k] = *v;
  if (!r.labels.empty()) j["labels"] = r.labels;
  return j;
}

std::vector<Request> parse_requests(std::string_view jsonl, const Bounds& bounds,
                                    const RequestContext& ctx, std::vector<Refusal>& refusals) {
  std::vector<Request> out;
  std::map<std::string, int> counts;
  int line = 0;
  size_t pos = 0;
  while (pos < jsonl.size()) {
    size_t nl = jsonl.find('\n', pos);
    std::string_view text = jsonl.substr(pos, nl == std::string_view::npos ? jsonl.npos : nl - pos);
    pos = nl == std::string_view::npos ? jsonl.size() : nl + 1;
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    LineCheck lc{line, refusals};
    auto j = parse_line(text, lc);
    if (!j) continue;
    auto r = one_request(*j, bounds, ctx, lc);
    if (!r) continue;
    int n = ++counts[r->type];
    auto b = bounds.max_requests.find(r->type);
    int max = b == bounds.max_requests.end() ? 0 : b->second;
    if (n > max) {
      lc.refuse("request.count", fmt::format("{} `{}` requests, the bound is {}", n, r->type, max));
      continue;
    }
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace aw
