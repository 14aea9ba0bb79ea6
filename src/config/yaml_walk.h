// Walking a yaml-cpp tree against the schema while collecting every problem, each as
// "FILE:LINE:COL: KEY.PATH: what is wrong; how to fix it". yaml-cpp stays inside src/config/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace aw {

class Issues {
 public:
  explicit Issues(std::string file) : file_(std::move(file)) {}
  // mark is yaml-cpp's (0-based); printed 1-based. A mark without a line prints the file only.
  void add(const YAML::Mark& mark, std::string_view path, std::string_view what);
  // Lines another parser already formatted as FILE:LINE:COL: path: what (e.g. bounds:).
  void add_formatted(std::string_view lines);
  const std::string& file() const { return file_; }
  bool empty() const { return list_.empty(); }
  std::string joined() const;

 private:
  std::string file_;
  std::vector<std::string> list_;
  size_t dropped_ = 0;
};

// A node with its key path ("repos.web.checks[1]") and the position to report for it.
struct Value {
  YAML::Node node;
  std::string path;
  YAML::Mark mark;
};

struct Field {
  std::string key;
  YAML::Mark key_mark;
  Value value;  // a null value is reported at its key: yaml-cpp marks it past the key
};

// "a map", "a list", "a string", "nothing" — for "expected X, found Y".
std::string kind_of(const YAML::Node& n);

// The fields of a map in file order, first occurrence of each key. Reports keys that are not
// strings, duplicates (yaml-cpp silently keeps one), and — unless allowed is empty, meaning
// free-form names — keys not in allowed, with a did-you-mean.
std::vector<Field> map_fields(const Value& map, const std::vector<std::string>& allowed,
                              Issues& issues);

// Each getter reports what is wrong and returns nullopt; hint says how to write it right.
bool expect_map(const Value& v, std::string_view hint, Issues& issues);
std::optional<std::vector<Value>> get_list(const Value& v, std::string_view hint, Issues& issues);
std::optional<std::string> get_string(const Value& v, std::string_view hint, Issues& issues);
std::optional<size_t> get_enum(const Value& v, const std::vector<std::string>& names,
                               Issues& issues);
std::optional<int64_t> get_int(const Value& v, int64_t min, int64_t max, std::string_view hint,
                               Issues& issues);
std::optional<double> get_number(const Value& v, double max, std::string_view hint, Issues& issues);
// true or false (YAML 1.2's spelling; yes/no/on/off are refused as ambiguous).
std::optional<bool> get_bool(const Value& v, std::string_view hint, Issues& issues);
// A list of strings; a single string is refused (hint shows the list form).
std::optional<std::vector<std::string>> get_strings(const Value& v, std::string_view hint,
                                                    Issues& issues);
// A command: a string split by split_words, or a list of strings. Never empty.
std::optional<Argv> get_command(const Value& v, Issues& issues);

}  // namespace aw
