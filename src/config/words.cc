// split_words: the word splitting of a POSIX shell and nothing else. A command string in the config
// becomes an argv that is exec'd directly, so everything a shell would *do* with the text
// (expansion, pipes, redirections, lists) is either kept literal or refused with an explanation.
#include <string_view>

#include "config/config.h"

namespace aw {
namespace {

constexpr std::string_view kNoShell =
    "commands are not run through a shell, so it would reach the program as a plain argument; "
    "put the steps in a script and run that, or write a list such as [sh, -c, \"...\"] to ask "
    "for a shell";
constexpr std::string_view kNoLines =
    "commands are not run through a shell; put the steps in a script and run that, or make each "
    "step its own command";

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
bool is_operator(char c) {
  return c == '|' || c == '&' || c == ';' || c == '<' || c == '>';
}

// The operator token starting at i, at most two characters: "&&", "||", ">>", ">&".
std::string_view operator_at(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && is_operator(s[j]) && j - i < 2) ++j;
  return s.substr(i, j - i);
}

class Splitter {
 public:
  explicit Splitter(std::string_view s) : s_(s) {}

  Result<Argv> run() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (is_blank(c)) {
        end_word();
        ++i_;
      } else if (c == '\n' || c == '\r') {
        return fail("line break at column {}: a shell would start a new command there, but {}",
                    col(), kNoLines);
      } else if (is_operator(c)) {
        return fail("'{}' at column {} is a shell operator, but {}", operator_at(s_, i_), col(),
                    kNoShell);
      } else if (c == '#' && !in_word_) {
        return fail(
            "'#' at column {} would start a comment in a shell, but {}; quote it ('#') if you "
            "mean a literal #",
            col(), "commands are not run through a shell");
      } else if (c == '\'') {
        AW_CHECK(single_quoted());
      } else if (c == '"') {
        AW_CHECK(double_quoted());
      } else if (c == '\\') {
        AW_CHECK(backslash());
      } else {
        add(c);
        ++i_;
      }
    }
    end_word();
    return std::move(words_);
  }

 private:
  size_t col() const { return i_ + 1; }
  void add(char c) {
    word_ += c;
    in_word_ = true;
  }
  void end_word() {
    if (in_word_) words_.push_back(std::move(word_));
    word_.clear();
    in_word_ = false;
  }

  Status single_quoted() {
    size_t open = col();
    size_t close = s_.find('\'', i_ + 1);
    if (close == std::string_view::npos)
      return fail("unbalanced single quote at column {}; add the closing '", open);
    word_.append(s_.substr(i_ + 1, close - i_ - 1));
    in_word_ = true;  // '' is an empty argument, as in a shell
    i_ = close + 1;
    return {};
  }

  Status double_quoted() {
    size_t open = col();
    in_word_ = true;
    for (++i_; i_ < s_.size(); ++i_) {
      char c = s_[i_];
      if (c == '"') {
        ++i_;
        return {};
      }
      if (c == '\\' && i_ + 1 < s_.size()) {
        char n = s_[i_ + 1];
        if (n == '"' || n == '\\' || n == '$' || n == '`') {
          word_ += n;
          ++i_;
          continue;
        }
        if (n == '\n') {  // line continuation
          ++i_;
          continue;
        }
      }
      word_ += c;
    }
    return fail("unbalanced double quote at column {}; add the closing \"", open);
  }

  Status backslash() {
    if (i_ + 1 >= s_.size())
      return fail("trailing backslash at column {}; remove it, or write \\\\ for a backslash",
                  col());
    char n = s_[i_ + 1];
    if (n != '\n') add(n);  // backslash-newline joins lines
    i_ += 2;
    return {};
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string word_;
  bool in_word_ = false;
  Argv words_;
};

}  // namespace

Result<Argv> split_words(const std::string& command) {
  return Splitter(command).run();
}

}  // namespace aw
