// Reading fields of JSON that came from disk or the network, without exceptions. nlohmann's
// value() and get<>() throw on a wrongly typed field, and an exception that leaves a room ends
// the process (DESIGN.md section 9, invariant 7). Each reader here answers the field's value or
// an Error naming the document and the field's path:
//
//   record.json: field "phases[0].exit_code": expected an integer, got string
//
//   JsonRead r(j, "record.json");                       // any JSON value; r refers to j
//   AW_TRY(u.id, r.str("id"));                          // required: absent is an error
//   AW_TRY(u.base_ref, r.str_or("base_ref", ""));       // optional: absent or null -> fallback
//   AW_TRY(u.issue, r.int_or("issue", int64_t{0}, int64_t{0}));  // within [0, INT64_MAX]
//   AW_TRY(bool ok, r.bool_or("accepted", false));
//   AW_TRY(l.memory_bytes, r.uint_in<uint64_t>("memory_bytes"));  // unsigned, past INT64_MAX
//   AW_TRY(u.notes, r.strings_or("notes"));             // an array of strings (strings: required)
//   AW_TRY(JsonRead files, r.object("files"));          // nested: its errors say "files.NAME"
//   AW_TRY(std::vector<JsonRead> ps, r.array_or("phases"));  // elements: "phases[0]", ...
//
// An error names only what the caller passed (the document, the keys) and the JSON types, never
// a value read: what is read may be hostile text, and the error may reach a terminal.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace aw {

class JsonRead {
 public:
  // `what` names the document in errors ("record.json"); `path` is this value's place in it.
  explicit JsonRead(const nlohmann::json& j, std::string what, std::string path = "");

  const nlohmann::json& json() const { return *j_; }
  const std::string& path() const { return path_; }
  // This value is an object (else the Error says what it is instead).
  Status is_object() const;
  // key is present and not null (false when this is not an object).
  bool has(std::string_view key) const;

  Result<std::string> str(std::string_view key) const;
  Result<std::string> str_or(std::string_view key, std::string fallback) const;

  // An integer (not a fraction) within [min, max]; T's own range by default, so nothing is cut.
  template <std::signed_integral T>
  Result<T> int_in(std::string_view key, T min = std::numeric_limits<T>::min(),
                   T max = std::numeric_limits<T>::max()) const {
    return integer(key, nullptr, min, max).map([](int64_t v) { return static_cast<T>(v); });
  }
  template <std::signed_integral T>
  Result<T> int_or(std::string_view key, T fallback, T min = std::numeric_limits<T>::min(),
                   T max = std::numeric_limits<T>::max()) const {
    int64_t f = fallback;
    return integer(key, &f, min, max).map([](int64_t v) { return static_cast<T>(v); });
  }

  // An unsigned integer within [min, max], past INT64_MAX too (a byte count, a device number).
  template <std::unsigned_integral T>
  Result<T> uint_in(std::string_view key, T min = 0, T max = std::numeric_limits<T>::max()) const {
    return unsigned_integer(key, min, max).map([](uint64_t v) { return static_cast<T>(v); });
  }
  // Any number, a fraction or not (a CPU count).
  Result<double> number(std::string_view key) const;

  Result<bool> boolean(std::string_view key) const;
  Result<bool> bool_or(std::string_view key, bool fallback) const;

  Result<JsonRead> object(std::string_view key) const;
  Result<std::optional<JsonRead>> object_or(std::string_view key) const;  // absent: nullopt

  // The elements of an array, each a reader whose path is "key[i]".
  Result<std::vector<JsonRead>> array(std::string_view key) const;
  Result<std::vector<JsonRead>> array_or(std::string_view key) const;  // absent: none
  // An array of strings; absent: an error (strings), none (strings_or).
  Result<std::vector<std::string>> strings(std::string_view key) const;
  Result<std::vector<std::string>> strings_or(std::string_view key) const;

 private:
  // The field, or nullptr when absent or null; an Error when this is not an object.
  Result<const nlohmann::json*> field(std::string_view key) const;
  Result<int64_t> integer(std::string_view key, const int64_t* fallback, int64_t min,
                          int64_t max) const;
  Result<uint64_t> unsigned_integer(std::string_view key, uint64_t min, uint64_t max) const;
  Result<std::vector<std::string>> texts(const std::vector<JsonRead>& items) const;
  std::string child(std::string_view key) const;
  tl::unexpected<Error> missing(std::string_view key) const;
  // f (key's value) is a JSON integer: a float or another type answers the error both integer
  // readers give.
  Status whole_number(std::string_view key, const nlohmann::json& f) const;
  tl::unexpected<Error> wrong(std::string_view key, const char* expected,
                              const nlohmann::json& got) const;

  const nlohmann::json* j_;
  std::string what_, path_;
};

}  // namespace aw
