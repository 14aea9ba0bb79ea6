#include "base/json_read.h"

#include <nlohmann/json.hpp>

namespace aw {

JsonRead::JsonRead(const nlohmann::json& j, std::string what, std::string path)
    : j_(&j), what_(std::move(what)), path_(std::move(path)) {}

std::string JsonRead::child(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

Status JsonRead::is_object() const {
  if (j_->is_object()) return {};
  if (path_.empty()) return fail("{}: expected an object, got {}", what_, j_->type_name());
  return fail("{}: field \"{}\": expected an object, got {}", what_, path_, j_->type_name());
}

bool JsonRead::has(std::string_view key) const {
  if (!j_->is_object()) return false;
  auto it = j_->find(std::string(key));
  return it != j_->end() && !it->is_null();
}

tl::unexpected<Error> JsonRead::missing(std::string_view key) const {
  return fail("{}: field \"{}\" is missing", what_, child(key));
}

tl::unexpected<Error> JsonRead::wrong(std::string_view key, const char* expected,
                                      const nlohmann::json& got) const {
  return fail("{}: field \"{}\": expected {}, got {}", what_, child(key), expected,
              got.type_name());
}

Status JsonRead::whole_number(std::string_view key, const nlohmann::json& f) const {
  if (f.is_number_float())
    return fail("{}: field \"{}\": expected an integer, got a floating-point number", what_,
                child(key));
  if (!f.is_number_integer()) return wrong(key, "an integer", f);
  return {};
}

Result<const nlohmann::json*> JsonRead::field(std::string_view key) const {
  AW_CHECK(is_object());
  auto it = j_->find(std::string(key));
  if (it == j_->end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::string> JsonRead::str(std::string_view key) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) return missing(key);
  if (!f->is_string()) return wrong(key, "a string", *f);
  return f->get<std::string>();
}

Result<std::string> JsonRead::str_or(std::string_view key, std::string fallback) const {
  if (!has(key)) {
    AW_CHECK(is_object());
    return fallback;
  }
  return str(key);
}

Result<int64_t> JsonRead::integer(std::string_view key, const int64_t* fallback, int64_t min,
                                  int64_t max) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) {
    if (fallback) return *fallback;
    return missing(key);
  }
  AW_CHECK(whole_number(key, *f));
  // An unsigned value past INT64_MAX is out of every range this reads into.
  if (f->is_number_unsigned() && f->get<uint64_t>() > uint64_t(INT64_MAX))
    return fail("{}: field \"{}\": {} is out of range [{}, {}]", what_, child(key),
                f->get<uint64_t>(), min, max);
  int64_t v = f->get<int64_t>();
  if (v < min || v > max)
    return fail("{}: field \"{}\": {} is out of range [{}, {}]", what_, child(key), v, min, max);
  return v;
}

Result<uint64_t> JsonRead::unsigned_integer(std::string_view key, uint64_t min,
                                            uint64_t max) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) return missing(key);
  AW_CHECK(whole_number(key, *f));
  if (!f->is_number_unsigned() && f->get<int64_t>() < 0)
    return fail("{}: field \"{}\": {} is out of range [{}, {}]", what_, child(key),
                f->get<int64_t>(), min, max);
  uint64_t v = f->get<uint64_t>();
  if (v < min || v > max)
    return fail("{}: field \"{}\": {} is out of range [{}, {}]", what_, child(key), v, min, max);
  return v;
}

Result<double> JsonRead::number(std::string_view key) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) return missing(key);
  if (!f->is_number()) return wrong(key, "a number", *f);
  return f->get<double>();
}

Result<bool> JsonRead::boolean(std::string_view key) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) return missing(key);
  if (!f->is_boolean()) return wrong(key, "a boolean", *f);
  return f->get<bool>();
}

Result<bool> JsonRead::bool_or(std::string_view key, bool fallback) const {
  if (!has(key)) {
    AW_CHECK(is_object());
    return fallback;
  }
  return boolean(key);
}

Result<JsonRead> JsonRead::object(std::string_view key) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) return missing(key);
  if (!f->is_object()) return wrong(key, "an object", *f);
  return JsonRead(*f, what_, child(key));
}

Result<std::optional<JsonRead>> JsonRead::object_or(std::string_view key) const {
  if (!has(key)) {
    AW_CHECK(is_object());
    return std::optional<JsonRead>();
  }
  AW_TRY(JsonRead o, object(key));
  return std::optional<JsonRead>(std::move(o));
}

Result<std::vector<JsonRead>> JsonRead::array(std::string_view key) const {
  AW_TRY(const nlohmann::json* f, field(key));
  if (!f) return missing(key);
  if (!f->is_array()) return wrong(key, "an array", *f);
  std::vector<JsonRead> out;
  out.reserve(f->size());
  std::string at = child(key);
  for (size_t i = 0; i < f->size(); ++i)
    out.emplace_back((*f)[i], what_, fmt::format("{}[{}]", at, i));
  return out;
}

Result<std::vector<JsonRead>> JsonRead::array_or(std::string_view key) const {
  if (!has(key)) {
    AW_CHECK(is_object());
    return std::vector<JsonRead>();
  }
  return array(key);
}

Result<std::vector<std::string>> JsonRead::strings(std::string_view key) const {
  AW_TRY(std::vector<JsonRead> items, array(key));
  return texts(items);
}

Result<std::vector<std::string>> JsonRead::strings_or(std::string_view key) const {
  AW_TRY(std::vector<JsonRead> items, array_or(key));
  return texts(items);
}

Result<std::vector<std::string>> JsonRead::texts(const std::vector<JsonRead>& items) const {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const JsonRead& e : items) {
    if (!e.json().is_string())
      return fail("{}: field \"{}\": expected a string, got {}", what_, e.path(),
                  e.json().type_name());
    out.push_back(e.json().get<std::string>());
  }
  return out;
}

}  // namespace aw
