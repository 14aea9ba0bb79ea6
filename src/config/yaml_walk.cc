#include "config/yaml_walk.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>

#include "config/suggest.h"

namespace aw {

// Enough for any real file; a generated mess should not print thousands of lines.
static constexpr size_t kMaxIssues = 50;

void Issues::add(const YAML::Mark& mark, std::string_view path, std::string_view what) {
  if (list_.size() >= kMaxIssues) {
    ++dropped_;
    return;
  }
  std::string where =
      mark.line >= 0 ? fmt::format("{}:{}:{}", file_, mark.line + 1, mark.column + 1) : file_;
  list_.push_back(path.empty() ? fmt::format("{}: {}", where, what)
                               : fmt::format("{}: {}: {}", where, path, what));
}

void Issues::add_formatted(std::string_view lines) {
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string_view::npos) end = lines.size();
    if (end > start) {
      if (list_.size() >= kMaxIssues)
        ++dropped_;
      else
        list_.emplace_back(lines.substr(start, end - start));
    }
    start = end + 1;
  }
}

std::string Issues::joined() const {
  std::string out;
  for (const auto& l : list_) {
    if (!out.empty()) out += '\n';
    out += l;
  }
  if (dropped_) out += fmt::format("\n{}: ... and {} more problems", file_, dropped_);
  return out;
}

std::string kind_of(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return fmt::format("'{}'", n.Scalar());
    default:
      return "nothing";
  }
}

static void wrong_type(const Value& v, std::string_view expected, std::string_view hint,
                       Issues& issues) {
  issues.add(v.mark, v.path,
             fmt::format("expected {}, found {}; {}", expected, kind_of(v.node), hint));
}

static std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

std::vector<Field> map_fields(const Value& map, const std::vector<std::string>& allowed,
                              Issues& issues) {
  std::vector<Field> out;
  std::map<std::string, int> first_line;
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    YAML::Node k = it->first;  // by value: the iterator hands out a temporary pair
    if (!k.IsScalar()) {
      issues.add(
          k.Mark(), map.path,
          fmt::format("a key must be a plain name, found {}; write name: value", kind_of(k)));
      continue;
    }
    const std::string& key = k.Scalar();
    std::string path = map.path.empty() ? key : map.path + "." + key;
    if (auto [pos, fresh] = first_line.emplace(key, k.Mark().line + 1); !fresh) {
      issues.add(
          k.Mark(), path,
          fmt::format("duplicate key (first at line {}); keep only one of them", pos->second));
      continue;
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string dym = did_you_mean(key, allowed);
      issues.add(k.Mark(), path,
                 dym.empty() ? fmt::format("unknown key; the keys here are {}", join_names(allowed))
                             : "unknown key" + dym);
      continue;
    }
    YAML::Node v = it->second;
    out.push_back(Field{key, k.Mark(), Value{v, path, v.IsNull() ? k.Mark() : v.Mark()}});
  }
  return out;
}

bool expect_map(const Value& v, std::string_view hint, Issues& issues) {
  if (v.node.IsMap()) return true;
  wrong_type(v, "a map", hint, issues);
  return false;
}

std::optional<std::vector<Value>> get_list(const Value& v, std::string_view hint, Issues& issues) {
  if (!v.node.IsSequence()) {
    wrong_type(v, "a list", hint, issues);
    return std::nullopt;
  }
  std::vector<Value> out;
  size_t i = 0;
  for (auto it = v.node.begin(); it != v.node.end(); ++it, ++i) {
    YAML::Node n = *it;
    out.push_back(Value{n, fmt::format("{}[{}]", v.path, i), n.IsNull() ? v.mark : n.Mark()});
  }
  return out;
}

// The text of a scalar; anything else is "expected <expected>".
static std::optional<std::string> scalar(const Value& v, std::string_view expected,
                                         std::string_view hint, Issues& issues) {
  if (!v.node.IsScalar()) {
    wrong_type(v, expected, hint, issues);
    return std::nullopt;
  }
  const std::string& s = v.node.Scalar();
  if (s.find('\0') != std::string::npos) {
    issues.add(v.mark, v.path, "contains a NUL character; remove it");
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> get_string(const Value& v, std::string_view hint, Issues& issues) {
  return scalar(v, "a string", hint, issues);
}

std::optional<size_t> get_enum(const Value& v, const std::vector<std::string>& names,
                               Issues& issues) {
  std::string hint = "write one of " + join_names(names);
  auto s = get_string(v, hint, issues);
  if (!s) return std::nullopt;
  for (size_t i = 0; i < names.size(); ++i)
    if (*s == names[i]) return i;
  issues.add(
      v.mark, v.path,
      fmt::format("'{}' is not one of {}{}", *s, join_names(names), did_you_mean(*s, names)));
  return std::nullopt;
}

std::optional<int64_t> get_int(const Value& v, int64_t min, int64_t max, std::string_view hint,
                               Issues& issues) {
  auto s = scalar(v, "a whole number", hint, issues);
  if (!s) return std::nullopt;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), n);
  bool digits_only = !s->empty() && s->find_first_not_of("0123456789") == std::string::npos;
  if (!digits_only || ec != std::errc() || end != s->data() + s->size()) {
    if (digits_only || (s->size() > 1 && (*s)[0] == '-'))  // too large, or negative
      issues.add(v.mark, v.path, fmt::format("{} is out of range; use {} to {}", *s, min, max));
    else
      issues.add(v.mark, v.path, fmt::format("'{}' is not a whole number; {}", *s, hint));
    return std::nullopt;
  }
  if (n < min || n > max) {
    issues.add(v.mark, v.path, fmt::format("{} is out of range; use {} to {}", n, min, max));
    return std::nullopt;
  }
  return n;
}

std::optional<double> get_number(const Value& v, double max, std::string_view hint,
                                 Issues& issues) {
  auto s = scalar(v, "a number", hint, issues);
  if (!s) return std::nullopt;
  double d = 0;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), d);
  if (ec != std::errc() || end != s->data() + s->size() || !std::isfinite(d)) {
    issues.add(v.mark, v.path, fmt::format("'{}' is not a number; {}", *s, hint));
    return std::nullopt;
  }
  if (d <= 0 || d > max) {
    issues.add(v.mark, v.path,
               fmt::format("{} is out of range; use more than 0, at most {}", *s, max));
    return std::nullopt;
  }
  return d;
}

std::optional<bool> get_bool(const Value& v, std::string_view hint, Issues& issues) {
  auto s = scalar(v, "true or false", hint, issues);
  if (!s) return std::nullopt;
  if (*s == "true") return true;
  if (*s == "false") return false;
  issues.add(v.mark, v.path, fmt::format("'{}' is not true or false; {}", *s, hint));
  return std::nullopt;
}

std::optional<std::vector<std::string>> get_strings(const Value& v, std::string_view hint,
                                                    Issues& issues) {
  auto items = get_list(v, hint, issues);
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  bool ok = true;
  for (const auto& item : *items) {
    auto s = get_string(item, hint, issues);
    if (s) out.push_back(std::move(*s));
    ok = ok && s.has_value();
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<Argv> get_command(const Value& v, Issues& issues) {
  static constexpr std::string_view kHint =
      "write the program and its arguments as a string \"npm test\" or a list [npm, test]";
  Argv argv;
  if (v.node.IsScalar()) {
    auto s = get_string(v, kHint, issues);
    if (!s) return std::nullopt;
    auto words = split_words(*s);
    if (!words) {
      issues.add(v.mark, v.path, words.error().message);
      return std::nullopt;
    }
    argv = std::move(*words);
  } else if (v.node.IsSequence()) {
    auto words = get_strings(v, kHint, issues);
    if (!words) return std::nullopt;
    argv = std::move(*words);
  } else {
    wrong_type(v, "a command", kHint, issues);
    return std::nullopt;
  }
  if (argv.empty()) {
    issues.add(v.mark, v.path, fmt::format("empty command; {}", kHint));
    return std::nullopt;
  }
  if (argv[0].empty()) {
    issues.add(v.mark, v.path, fmt::format("the program name is empty; {}", kHint));
    return std::nullopt;
  }
  return argv;
}

}  // namespace aw
