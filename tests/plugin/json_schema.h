// What docs/plugins/*.schema.json use of JSON Schema, checked by the repository's own code (no
// validator package is a dependency): type, enum, pattern, minimum, required, properties,
// additionalProperties: false, items, minItems, maxItems and oneOf. schema_breaks returns the
// first thing j breaks, "" when it holds. A keyword it does not know is a test failure, so a
// schema cannot silently say more than is checked.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace aw::test {

inline std::string schema_breaks(const nlohmann::json& schema, const nlohmann::json& j,
                                 const std::string& at) {
  static const std::set<std::string> kKnown = {"$schema",     "title",
                                               "description", "type",
                                               "enum",        "pattern",
                                               "minimum",     "required",
                                               "properties",  "items",
                                               "minItems",    "maxItems",
                                               "oneOf",       "additionalProperties"};
  for (const auto& [k, v] : schema.items())
    if (!kKnown.contains(k)) ADD_FAILURE() << at << ": the schema uses " << k << ", not checked";
  if (schema.contains("type")) {
    std::string t = schema["type"];
    bool ok = (t == "string" && j.is_string()) || (t == "integer" && j.is_number_integer()) ||
              (t == "object" && j.is_object()) || (t == "number" && j.is_number()) ||
              (t == "array" && j.is_array()) || (t == "boolean" && j.is_boolean());
    if (!ok) return at + ": not " + t;
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == j;
    if (!found) return at + ": not one of " + schema["enum"].dump();
  }
  if (schema.contains("pattern") && j.is_string() &&
      !std::regex_search(j.get<std::string>(), std::regex(schema["pattern"].get<std::string>())))
    return at + ": does not match " + schema["pattern"].get<std::string>();
  if (schema.contains("minimum") && j.is_number() && j.get<double>() < schema["minimum"])
    return at + ": below " + schema["minimum"].dump();
  if (schema.contains("oneOf")) {
    int holds = 0;
    for (const auto& s : schema["oneOf"]) holds += schema_breaks(s, j, at).empty() ? 1 : 0;
    if (holds != 1) return at + ": holds to " + std::to_string(holds) + " of oneOf, not 1";
  }
  if (j.is_array()) {
    if (j.size() < schema.value("minItems", size_t{0})) return at + ": too few items";
    if (schema.contains("maxItems") && j.size() > schema["maxItems"].get<size_t>())
      return at + ": too many items";
    if (schema.contains("items"))
      for (size_t i = 0; i < j.size(); ++i)
        if (auto b = schema_breaks(schema["items"], j[i], at + "[" + std::to_string(i) + "]");
            !b.empty())
          return b;
  }
  if (!j.is_object()) return "";
  for (const auto& r : schema.value("required", nlohmann::json::array()))
    if (!j.contains(r.get<std::string>())) return at + ": missing " + r.get<std::string>();
  const auto props = schema.value("properties", nlohmann::json::object());
  for (const auto& [k, v] : j.items()) {
    if (props.contains(k)) {
      if (auto b = schema_breaks(props[k], v, at + "." + k); !b.empty()) return b;
    } else if (schema.value("additionalProperties", true) == false) {
      return at + ": " + k + " is not in the schema";
    }
  }
  return "";
}

// docs/plugins/NAME, parsed (a discarded value when missing or not JSON).
inline nlohmann::json plugin_schema(const std::string& name) {
  std::ifstream in(std::string(AW_SOURCE_DIR) + "/docs/plugins/" + name);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return nlohmann::json::parse(text, nullptr, false);
}

}  // namespace aw::test
